package auth

import (
	"sync"
	"time"
)

// Failed sign-ins are throttled per e-mail and IP: after loginMaxFailures
// failures within loginWindow, further attempts get 429 until the oldest
// failure leaves the window.
const (
	loginMaxFailures = 10
	loginWindow      = 15 * time.Minute
	limiterMaxKeys   = 100_000
)

type loginLimiter struct {
	mu       sync.Mutex
	failures map[string][]time.Time
	now      func() time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{failures: map[string][]time.Time{}, now: time.Now}
}

// recent drops failures older than the window and returns what is left.
func (l *loginLimiter) recent(key string, now time.Time) []time.Time {
	list := l.failures[key]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= loginWindow {
		i++
	}
	list = list[i:]
	if len(list) == 0 {
		delete(l.failures, key)
	} else {
		l.failures[key] = list
	}
	return list
}

// blocked reports whether key is throttled, and for how long.
func (l *loginLimiter) blocked(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	list := l.recent(key, now)
	if len(list) < loginMaxFailures {
		return false, 0
	}
	return true, loginWindow - now.Sub(list[0])
}

// fail records a failed attempt.
func (l *loginLimiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) >= limiterMaxKeys {
		now := l.now()
		for k := range l.failures {
			l.recent(k, now)
		}
	}
	l.failures[key] = append(l.failures[key], l.now())
}

// reset forgets the failures of key after a successful sign-in.
func (l *loginLimiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, key)
}
