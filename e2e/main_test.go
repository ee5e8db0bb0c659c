package e2e_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"

	"camellos/internal/config"
	"camellos/internal/testkit"

	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/tests"
)

// The browser suite runs its journeys in parallel (t.Parallel, bounded by
// go test's -parallel, GOMAXPROCS by default) against one Chromium: each
// test gets its own browser context (cookies, storage, permissions and
// service workers of its own, like a fresh profile) in its own window, so
// journeys never see each other. Every test boots its own service; the
// seeded marketplace is seeded once and copied (testkit.Snapshot/NewFrom).
func TestMain(m *testing.M) {
	// No test of this package is about the sign-in quota; set once for all,
	// since a parallel test cannot t.Setenv.
	os.Setenv("AUTH_IP_LIMIT", "0")
	// go test's default -parallel (GOMAXPROCS) is kept: four journeys at
	// once on 2 cores made answers late enough for a real layout shift
	// (TestMarketplaceFlow/phone, the footer on flujo-agendar, CLS 0.055) to
	// fall outside Chrome's input window in a quiet CI run.
	flag.Parse()
	code := m.Run()
	printTiming()
	shared.stop()
	if seedSnap.dir != "" {
		os.RemoveAll(seedSnap.dir)
	}
	os.Exit(code)
}

// chromium is the one browser process of the package, started by the first
// test that needs it.
type chromium struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab: parent of every test's context
	err    error
	cancel func()
}

var shared chromium

func (c *chromium) start(path string) (context.Context, error) {
	c.once.Do(func() {
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			// Several windows at once: none may be throttled as "in the
			// background" (timers, animation frames).
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-backgrounding-occluded-windows", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.Flag("lang", "es-CO"),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelBrowser := chromedp.NewContext(actx)
		c.cancel = func() { cancelBrowser(); cancelAlloc() }
		if err := chromedp.Do(ctx); err != nil {
			c.err = fmt.Errorf("starting Chromium: %w", err)
			return
		}
		c.ctx = ctx
	})
	return c.ctx, c.err
}

func (c *chromium) stop() {
	if c.cancel != nil {
		c.cancel()
	}
}

// withEnv gives one service settings on top of the environment, as the
// binary would read them (a parallel test cannot t.Setenv).
func withEnv(kv map[string]string) testkit.Option {
	return func(app *tests.TestApp) {
		env := map[string]string{}
		for _, e := range os.Environ() {
			if k, v, ok := strings.Cut(e, "="); ok {
				env[k] = v
			}
		}
		maps.Copy(env, kv)
		cfg, err := config.FromMap(env)
		if err != nil {
			panic(fmt.Sprintf("test settings: %v", err))
		}
		config.Set(app, cfg)
	}
}

// seedSnap is the seeded marketplace, seeded once for the package.
var seedSnap struct {
	once sync.Once
	dir  string
	err  error
}
