// Package craft builds image files byte by byte for the tests and fuzz
// targets of the upload policy: headers that claim any dimensions
// (decompression bombs), truncated files, progressive JPEG frames, WebP
// canvases that disagree with their frame, animated GIF and WebP. Nothing
// here decodes; a crafted file is a few hundred bytes whatever it claims.
package craft

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// PNGOptions are the IHDR fields of a crafted PNG.
type PNGOptions struct {
	ColorType byte // 6 RGBA (default 0 = gray)
	Depth     byte // 8 when 0
	Interlace byte // 1 Adam7
}

// PNG is a PNG whose IHDR claims w × h and whose IDAT holds a few KiB of
// compressed zeros (far too few rows: a decoder that allocates the image
// from the header first allocates w × h pixels, then fails).
func PNG(w, h uint32, o PNGOptions) []byte {
	if o.Depth == 0 {
		o.Depth = 8
	}
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9], ihdr[12] = o.Depth, o.ColorType, o.Interlace
	chunk(&b, "IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(make([]byte, 4096))
	_ = zw.Close()
	chunk(&b, "IDAT", z.Bytes())
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

// BombPNG is the decompression bomb: an RGBA PNG claiming w × h.
func BombPNG(w, h uint32) []byte { return PNG(w, h, PNGOptions{ColorType: 6}) }

func chunk(b *bytes.Buffer, typ string, data []byte) {
	_ = binary.Write(b, binary.BigEndian, uint32(len(data)))
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	_ = binary.Write(b, binary.BigEndian, crc.Sum32())
}

// JPEG is a JPEG whose frame header claims w × h with 3 components at full
// resolution (4:4:4), baseline (SOF0) or progressive (SOF2), after an APP0
// (JFIF) segment; it ends right after the frame header.
func JPEG(w, h uint16, progressive bool) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	b.Write([]byte{0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0})
	sof := byte(0xC0)
	if progressive {
		sof = 0xC2
	}
	b.Write([]byte{0xFF, sof, 0x00, 0x11, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0})
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// WebPLossy is a WebP (simple format) whose VP8 key frame header claims
// w × h (each at most 16,383).
func WebPLossy(w, h uint16) []byte { return riff(vp8(w, h)) }

// WebPLossless is a WebP (simple format) whose VP8L header claims w × h
// (each 1 to 16,384).
func WebPLossless(w, h uint16) []byte { return riff(vp8l(w, h)) }

// WebPExtended is a WebP with a VP8X header claiming a canvas of cw × ch
// and the given flags (0x02 animation, 0x10 alpha), followed by a lossy
// frame of fw × fh (the two may disagree).
func WebPExtended(cw, ch uint32, flags byte, fw, fh uint16) []byte {
	x := make([]byte, 10)
	x[0] = flags
	cw, ch = cw-1, ch-1
	x[4], x[5], x[6] = byte(cw), byte(cw>>8), byte(cw>>16)
	x[7], x[8], x[9] = byte(ch), byte(ch>>8), byte(ch>>16)
	var body bytes.Buffer
	riffChunk(&body, "VP8X", x)
	body.Write(vp8(fw, fh))
	return riff(body.Bytes())
}

// WebPAnimated is an animated WebP: a VP8X header with the animation flag,
// an ANIM chunk and frames ANMF of w × h each.
func WebPAnimated(w, h uint32, frames int) []byte {
	x := make([]byte, 10)
	x[0] = 0x02
	cw, ch := w-1, h-1
	x[4], x[5], x[6] = byte(cw), byte(cw>>8), byte(cw>>16)
	x[7], x[8], x[9] = byte(ch), byte(ch>>8), byte(ch>>16)
	var body bytes.Buffer
	riffChunk(&body, "VP8X", x)
	riffChunk(&body, "ANIM", make([]byte, 6))
	for range frames {
		f := make([]byte, 16)
		f[6], f[7], f[8] = byte(cw), byte(cw>>8), byte(cw>>16)
		f[9], f[10], f[11] = byte(ch), byte(ch>>8), byte(ch>>16)
		riffChunk(&body, "ANMF", append(f, vp8(uint16(min(w, 16383)), uint16(min(h, 16383)))...))
	}
	return riff(body.Bytes())
}

func vp8(w, h uint16) []byte {
	// Frame tag (key frame, version 0, shown, first partition 16 bytes),
	// start code, then the 14-bit width and height (scale 0).
	data := []byte{0x50, 0x02, 0x00, 0x9d, 0x01, 0x2a, byte(w), byte(w>>8) & 0x3f, byte(h), byte(h>>8) & 0x3f}
	data = append(data, make([]byte, 16)...)
	var b bytes.Buffer
	riffChunk(&b, "VP8 ", data)
	return b.Bytes()
}

func vp8l(w, h uint16) []byte {
	bits := uint32(w-1)&0x3fff | (uint32(h-1)&0x3fff)<<14 // alpha 0, version 0
	data := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
	data = append(data, make([]byte, 16)...)
	var b bytes.Buffer
	riffChunk(&b, "VP8L", data)
	return b.Bytes()
}

func riffChunk(b *bytes.Buffer, id string, data []byte) {
	b.WriteString(id)
	_ = binary.Write(b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
}

func riff(body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(4+len(body)))
	b.WriteString("WEBP")
	b.Write(body)
	return b.Bytes()
}

// GIF is a GIF89a whose logical screen is w × h with frames image
// descriptors of the whole screen, each with a one-byte LZW stream: an
// animation bomb when a decoder allocates every frame.
func GIF(w, h uint16, frames int) []byte {
	var b bytes.Buffer
	b.WriteString("GIF89a")
	_ = binary.Write(&b, binary.LittleEndian, w)
	_ = binary.Write(&b, binary.LittleEndian, h)
	b.Write([]byte{0x80, 0, 0}) // global colour table of 2 entries
	b.Write([]byte{0, 0, 0, 255, 255, 255})
	b.Write([]byte{0x21, 0xFF, 0x0B}) // NETSCAPE2.0 loop forever
	b.WriteString("NETSCAPE2.0")
	b.Write([]byte{0x03, 0x01, 0, 0, 0})
	for range frames {
		b.WriteByte(0x2C)
		_ = binary.Write(&b, binary.LittleEndian, [4]uint16{0, 0, w, h})
		b.Write([]byte{0x00, 0x02, 0x02, 0x4C, 0x01, 0x00}) // min code size 2, one sub-block
	}
	b.WriteByte(0x3B)
	return b.Bytes()
}

// Truncate returns the first n bytes of data (all of it when shorter).
func Truncate(data []byte, n int) []byte {
	if n > len(data) {
		n = len(data)
	}
	return append([]byte(nil), data[:n]...)
}
