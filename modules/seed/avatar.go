package seed

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
)

// avatarSize is the side of the generated demo photos, in pixels.
const avatarSize = 128

// avatarPNG draws a simple, deterministic portrait for demo camello n: a
// coloured background, a head and shoulders in a skin tone, and a shirt.
func avatarPNG(n int) []byte {
	bgs := []color.RGBA{
		{0x1E, 0x60, 0x91, 255}, {0x2D, 0x6A, 0x4F, 255}, {0x6A, 0x4C, 0x93, 255}, {0xB5, 0x65, 0x1D, 255},
		{0x9D, 0x02, 0x08, 255}, {0x38, 0x66, 0x41, 255}, {0x49, 0x50, 0x57, 255}, {0x7F, 0x4F, 0x24, 255},
	}
	skins := []color.RGBA{{0xF1, 0xC2, 0x7D, 255}, {0xE0, 0xAC, 0x69, 255}, {0xC6, 0x86, 0x42, 255}, {0x8D, 0x55, 0x24, 255}, {0xFF, 0xDB, 0xAC, 255}}
	shirts := []color.RGBA{{0xFF, 0xD1, 0x66, 255}, {0xF8, 0xF9, 0xFA, 255}, {0x06, 0xD6, 0xA0, 255}, {0xEF, 0x47, 0x6F, 255}, {0x11, 0x8A, 0xB2, 255}}
	hairs := []color.RGBA{{0x2B, 0x1D, 0x0E, 255}, {0x4A, 0x2C, 0x17, 255}, {0x1A, 0x1A, 0x1A, 255}, {0x8B, 0x5A, 0x2B, 255}}
	bg, skin := bgs[n%len(bgs)], skins[(n/3)%len(skins)]
	shirt, hair := shirts[(n/2)%len(shirts)], hairs[(n/5)%len(hairs)]

	img := image.NewRGBA(image.Rect(0, 0, avatarSize, avatarSize))
	const cx, headY, headR = 64.0, 52.0, 24.0
	for y := 0; y < avatarSize; y++ {
		for x := 0; x < avatarSize; x++ {
			fx, fy := float64(x)+.5, float64(y)+.5
			c := bg
			// shoulders: a half ellipse at the bottom
			if fy > 88 && math.Pow((fx-cx)/48, 2)+math.Pow((fy-132)/44, 2) <= 1 {
				c = shirt
			}
			// neck
			if fy > 70 && fy < 94 && math.Abs(fx-cx) < 10 {
				c = skin
			}
			d := math.Hypot(fx-cx, fy-headY)
			if d <= headR {
				c = skin
				// hair on the upper part of the head
				if fy < headY-8+float64(n%3)*2 {
					c = hair
				}
				// eyes
				if math.Hypot(fx-(cx-9), fy-(headY+2)) < 2.6 || math.Hypot(fx-(cx+9), fy-(headY+2)) < 2.6 {
					c = color.RGBA{0x22, 0x22, 0x22, 255}
				}
				// smile
				if md := math.Hypot(fx-cx, fy-(headY+6)); md > 9 && md < 11.5 && fy > headY+10 {
					c = color.RGBA{0x7A, 0x2E, 0x2E, 255}
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}
