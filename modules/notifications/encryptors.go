package notifications

import (
	"runtime"
	"sync"
)

// encryptors run the CPU of a broadcast — one ECDH agreement and one
// AES-GCM record per push — on at most GOMAXPROCS−1 goroutines (at least
// one), each on its own OS thread at a lower scheduling priority
// (lowerThreadPriority; Linux). The deliveries themselves are many (sized
// by the push services' latency, not by CPU) but only wait; if each
// encrypted on its own, a broadcast would fill every P of the runtime with
// encryption and a request arriving meanwhile would queue behind hundreds
// of them. With the pool, one core is always left for requests, and when
// the machine is short of CPU the kernel runs the requests first.
type encryptors struct {
	reqs chan *encryption
	wg   sync.WaitGroup
	stop chan struct{}
	once sync.Once
}

// encryption is one push to encrypt: the inputs, then the result.
type encryption struct {
	payload      []byte
	p256dh, auth string
	body         []byte
	err          error
	done         chan struct{}
}

var encryptionPool = sync.Pool{New: func() any { return &encryption{done: make(chan struct{}, 1)} }}

// encryptorCount is how many encryption goroutines a dispatcher runs.
func encryptorCount() int {
	return max(1, runtime.GOMAXPROCS(0)-1)
}

func newEncryptors(n int) *encryptors {
	e := &encryptors{reqs: make(chan *encryption), stop: make(chan struct{})}
	for i := 0; i < n; i++ {
		e.wg.Add(1)
		go e.loop()
	}
	return e
}

func (e *encryptors) loop() {
	defer e.wg.Done()
	// The thread's priority is this goroutine's alone: it never unlocks,
	// so the runtime ends the thread when the goroutine returns and no
	// other goroutine ever runs at the lowered priority.
	runtime.LockOSThread()
	lowerThreadPriority()
	for {
		select {
		case <-e.stop:
			return
		case x := <-e.reqs:
			x.body, x.err = encryptPush(x.payload, x.p256dh, x.auth)
			x.done <- struct{}{}
		}
	}
}

// encrypt encrypts payload for one subscription on the pool (at once,
// on the caller, when the pool is stopped).
func (e *encryptors) encrypt(payload []byte, p256dh, auth string) ([]byte, error) {
	if e == nil {
		return encryptPush(payload, p256dh, auth)
	}
	x := encryptionPool.Get().(*encryption)
	x.payload, x.p256dh, x.auth = payload, p256dh, auth
	select {
	case e.reqs <- x:
	case <-e.stop:
		encryptionPool.Put(x)
		return encryptPush(payload, p256dh, auth)
	}
	<-x.done
	body, err := x.body, x.err
	*x = encryption{done: x.done}
	encryptionPool.Put(x)
	return body, err
}

// close ends the pool's goroutines (encrypt then runs on the caller).
func (e *encryptors) close() {
	if e == nil {
		return
	}
	e.once.Do(func() { close(e.stop) })
	e.wg.Wait()
}
