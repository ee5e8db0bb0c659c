package modules

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"camellos/internal/config"
	"camellos/internal/logs"
	"camellos/modules/backup"
	"camellos/modules/ops"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/cmd"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Start runs the CLI as PocketBase's Start does (registering `serve` and
// `superuser`) but returns the command's error, so that main exits non-zero
// on every failure: `serve` on a busy port, an unknown command, a bad flag
// or argument. PocketBase's Execute prints a command's error and then
// returns nil; the exit code is ours to set. Cobra prints the error on
// stderr ("Error: ...").
func Start(app *pocketbase.PocketBase) error {
	app.RootCmd.AddCommand(cmd.NewSuperuserCommand(app))
	// The start banner is for people; a JSON log (LOG_FORMAT=json) is read
	// by machines and gets the start as a log line instead.
	banner := config.Of(app).LogFormat != config.LogJSON
	app.RootCmd.AddCommand(cmd.NewServeCommand(app, banner))
	// PocketBase ignores unknown flags; a typo in a flag must not run a
	// command with defaults silently.
	app.RootCmd.FParseErrWhitelist.UnknownFlags = false
	app.RootCmd.SilenceUsage = true
	app.RootCmd.SilenceErrors = true // printed in Spanish by Execute
	app.RootCmd.Version = ops.Version()
	app.RootCmd.SetVersionTemplate("{{.Version}}\n")
	// PocketBase's colored error writer prints the text itself on stdout.
	app.RootCmd.SetErr(os.Stderr)
	for _, c := range app.RootCmd.Commands() {
		requireSubcommand(c)
	}
	return Execute(app, os.Args[1:])
}

// requireSubcommand makes a command group (`backup`, `admin`...) fail on a
// missing or unknown subcommand; cobra shows the help and exits 0 there.
func requireSubcommand(c *cobra.Command) {
	if !c.HasSubCommands() {
		return
	}
	if !c.Runnable() {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("orden desconocida %q para %q", args[0], c.CommandPath())
			}
			c.SetOut(c.ErrOrStderr())
			_ = c.Help()
			return fmt.Errorf("%q needs a subcommand", c.CommandPath())
		}
	}
	for _, sub := range c.Commands() {
		requireSubcommand(sub)
	}
}

// Execute is PocketBase's Execute for args, returning the command's error.
func Execute(app *pocketbase.PocketBase, args []string) error {
	app.RootCmd.SetArgs(args)
	fail := func(err error) error {
		app.RootCmd.PrintErrln("Error:", spanish(err))
		return err
	}
	if !skipBootstrap(app, args) {
		c, _, _ := app.RootCmd.Find(args)
		if c.Name() == "serve" && c.Parent() == app.RootCmd {
			// Nothing is created when serve cannot run: the address is
			// checked first; then the data dir is locked for this service
			// alone (a second serve on it fails here).
			if err := checkServeAddress(c, args); err != nil {
				return fail(err)
			}
			if err := backup.LockForServe(app); err != nil {
				return fail(err)
			}
			logs.SetOutput(app, logs.Stdout()) // the service's log on stdout (journald, docker logs)
		}
		if err := checkDataDir(c, app.DataDir()); err != nil {
			return fail(err)
		}
		if err := app.Bootstrap(); err != nil {
			return fail(err)
		}
	}
	done := make(chan error, 2)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		done <- nil // a requested stop is not a failure
	}()
	go func() { done <- app.RootCmd.Execute() }()
	cmdErr := <-done
	ev := &core.TerminateEvent{App: app}
	termErr := app.OnTerminate().Trigger(ev, func(e *core.TerminateEvent) error {
		return e.App.ResetBootstrapState()
	})
	if cmdErr != nil {
		return fail(cmdErr)
	}
	return termErr
}

// skipBootstrap mirrors PocketBase's: no bootstrap for an unknown command,
// help or version (they must not create a data dir).
func skipBootstrap(app *pocketbase.PocketBase, args []string) bool {
	if app.IsBootstrapped() {
		return true
	}
	c, _, err := app.RootCmd.Find(args)
	if err != nil || c == app.RootCmd || c.Annotations[ops.NoBootstrap] != "" {
		return true
	}
	for _, a := range args {
		if !slices.Contains([]string{"-h", "--help", "-v", "--version"}, a) {
			continue
		}
		t := strings.TrimLeft(a, "-")
		if len(t) > 1 && c.Flags().Lookup(t) == nil || len(t) == 1 && c.Flags().ShorthandLookup(t) == nil {
			return true
		}
	}
	return false
}
