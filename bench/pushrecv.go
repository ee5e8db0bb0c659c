package main

import (
	"bytes"
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// The latency rows' receiver runs in a child process of its own at the
// lowest OS priority (nice 19): it stands for push services and browsers
// on other machines, so its CPU (TLS, HTTP/2, one ECDH and one AES-GCM
// opening per push) must not be counted against the service's requests.
// Both processes derive the subscribers' keys from one seed; the parent
// reads the counters from the child's control address.

// derivedKey is subscriber i's push identity, derived from seed.
func derivedKey(seed string, i int) *browserKey {
	for ctr := 0; ; ctr++ {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(i)<<16|uint64(ctr))
		d := sha256.Sum256(append([]byte("key|"+seed+"|"), b[:]...))
		priv, err := ecdh.P256().NewPrivateKey(d[:])
		if err != nil {
			continue // out of range: the next counter
		}
		a := sha256.Sum256(append([]byte("auth|"+seed+"|"), b[:]...))
		return &browserKey{priv: priv, auth: a[:16]}
	}
}

func derivedKeys(seed string, n int) []*browserKey {
	keys := make([]*browserKey, n)
	for i := range keys {
		keys[i] = derivedKey(seed, i)
	}
	return keys
}

// receiverState is what the child reports.
type receiverState struct {
	Got, Decrypted, Last, H2, Conns int64
	Failures                        []string
}

// runPushReceiverChild is the child: a receiver on PUSHRECV_ADDR, its
// control (state, reset) on PUSHRECV_CONTROL.
func runPushReceiverChild() {
	n, _ := strconv.Atoi(os.Getenv("PUSHRECV_N"))
	streams, _ := strconv.Atoi(os.Getenv("PUSHRECV_STREAMS"))
	delay, _ := time.ParseDuration(os.Getenv("PUSHRECV_DELAY"))
	l, err := net.Listen("tcp", os.Getenv("PUSHRECV_ADDR"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := servePushReceiver(os.Getenv("PUSHRECV_DIR"), l, derivedKeys(os.Getenv("PUSHRECV_SEED"), n), streams)
	if err != nil {
		log.Fatal(err)
	}
	r.delay = delay
	var h2 atomic.Int64
	inner := r.srv.Handler
	r.srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.ProtoMajor == 2 {
			h2.Add(1)
		}
		inner.ServeHTTP(w, req)
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/state", func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		f := append([]string(nil), r.failures...)
		r.mu.Unlock()
		_ = json.NewEncoder(w).Encode(receiverState{Got: r.got.Load(), Decrypted: r.decrypted.Load(), Last: r.last.Load(),
			H2: h2.Load(), Conns: r.conns.Load(), Failures: f})
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, req *http.Request) {
		r.reset(req.URL.Query().Get("want"))
		h2.Store(0)
	})
	log.Fatal(http.ListenAndServe(os.Getenv("PUSHRECV_CONTROL"), mux))
}

// remoteReceiver is the parent's handle on the child.
type remoteReceiver struct {
	cmd      *exec.Cmd
	base     string // https://127.0.0.1:port
	control  string
	certFile string
	keys     []*browserKey
	logs     *bytes.Buffer
}

// startRemoteReceiver starts the child receiver for n subscribers at nice 19.
func startRemoteReceiver(dir string, n, streams int, delay time.Duration) (*remoteReceiver, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	seed := strconv.FormatInt(time.Now().UnixNano(), 36)
	addr, ctl := freeAddr(), freeAddr()
	cmd := exec.Command("nice", "-n", "19", exe)
	cmd.Env = append(os.Environ(), childEnv+"=pushrecv", "PUSHRECV_N="+strconv.Itoa(n), "PUSHRECV_STREAMS="+strconv.Itoa(streams),
		"PUSHRECV_DELAY="+delay.String(), "PUSHRECV_ADDR="+addr, "PUSHRECV_CONTROL="+ctl, "PUSHRECV_DIR="+dir, "PUSHRECV_SEED="+seed)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &remoteReceiver{cmd: cmd, base: "https://" + addr, control: "http://" + ctl,
		certFile: filepath.Join(dir, "receiver.pem"), logs: logs}
	r.keys = derivedKeys(seed, n)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := r.state(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, fmt.Errorf("push receiver did not start: %s", clip(logs.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return r, nil
}

func (r *remoteReceiver) stop() {
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

func (r *remoteReceiver) state() (receiverState, error) {
	var s receiverState
	res, err := http.Get(r.control + "/state")
	if err != nil {
		return s, err
	}
	defer res.Body.Close()
	return s, json.NewDecoder(res.Body).Decode(&s)
}

func (r *remoteReceiver) reset(want string) error {
	res, err := http.Get(r.control + "/reset?want=" + url.QueryEscape(want))
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
}

// waitFor waits until n payloads were decrypted (or nothing arrives for
// 30 s), returning the last state and when the last one arrived.
func (r *remoteReceiver) waitFor(n int64, since time.Time) (receiverState, time.Time) {
	lastCount, lastChange := int64(-1), time.Now()
	var s receiverState
	for {
		var err error
		s, err = r.state()
		if err == nil && s.Decrypted >= n {
			break
		}
		if s.Got != lastCount {
			lastCount, lastChange = s.Got, time.Now()
		}
		if time.Since(lastChange) > 30*time.Second {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s.Last > 0 {
		return s, time.Unix(0, s.Last)
	}
	return s, since
}
