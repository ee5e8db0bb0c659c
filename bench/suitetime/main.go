// Command suitetime runs `go test -json` and names where the suite's time
// goes: every package's wall time and CPU time (user+sys of the test
// binary and every process it started and waited for), and the slowest
// tests. The machine may be shared: wall time then measures the load as
// much as the tests, CPU time much less so; both are printed.
//
//	go run ./bench/suitetime ./...                         # every package
//	go run ./bench/suitetime -top 40 ./modules/... ./hardening
//	go run ./bench/suitetime -json out.json -- -run TestX ./modules/jobs
//
// Arguments after the flags (and an optional "--") go to `go test` as
// they are; -count=1 is added so that nothing comes from the test cache.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

// execFlag makes this program the -exec wrapper of `go test`: it runs the
// test binary and appends one line "dir user sys" (seconds) to the log.
const execFlag = "-suitetime-exec"

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type pkgTime struct {
	name        string
	wall, cpu   float64 // seconds
	result      string  // pass, fail, skip
	haveCPU     bool    // the test binary ran (not only "no test files")
	failedTests []string
	lastOutput  []string // the package's last lines (a build failure, a panic)
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == execFlag {
		os.Exit(runWrapped(os.Args[2], os.Args[3:]))
	}
	top := flag.Int("top", 25, "how many of the slowest tests to name")
	jsonOut := flag.String("json", "", "also write go test's JSON stream to this file")
	flag.Parse()
	args := flag.Args()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		args = []string{"./..."}
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	cpuLog, err := os.CreateTemp("", "suitetime-cpu-")
	if err != nil {
		fail(err)
	}
	cpuLog.Close()
	defer os.Remove(cpuLog.Name())

	goArgs := append([]string{"test", "-json", "-count=1", "-exec", self + " " + execFlag + " " + cpuLog.Name()}, args...)
	cmd := exec.Command("go", goArgs...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	var raw io.Writer = io.Discard
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		raw = f
	}
	start := time.Now()
	var ru0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	pkgs := map[string]*pkgTime{}
	type testTime struct {
		pkg, name, result string
		wall              float64
	}
	var tests []testTime
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		fmt.Fprintf(raw, "%s\n", line)
		var e event
		if json.Unmarshal(line, &e) != nil || e.Package == "" {
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkgTime{name: e.Package}
			pkgs[e.Package] = p
		}
		switch e.Action {
		case "output":
			if e.Test == "" {
				p.lastOutput = append(p.lastOutput, e.Output)
				if len(p.lastOutput) > 20 {
					p.lastOutput = p.lastOutput[1:]
				}
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				p.wall, p.result = e.Elapsed, e.Action
				fmt.Fprintf(os.Stderr, "%-4s %-45s %7.1f s\n", e.Action, strings.TrimPrefix(e.Package, "camellos/"), e.Elapsed)
				continue
			}
			if e.Action == "fail" {
				p.failedTests = append(p.failedTests, e.Test)
			}
			if !strings.Contains(e.Test, "/") {
				tests = append(tests, testTime{e.Package, e.Test, e.Action, e.Elapsed})
			}
		}
	}
	runErr := cmd.Wait()
	wall := time.Since(start)
	var ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)

	// The wrapper's log: one line per test binary run, by directory.
	cpuByDir := map[string][2]float64{}
	if b, err := os.ReadFile(cpuLog.Name()); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var dir string
			var u, s float64
			if n, _ := fmt.Sscanf(l, "%s %f %f", &dir, &u, &s); n == 3 {
				cpuByDir[dir] = [2]float64{u, s}
			}
		}
	}
	dirs := packageDirs(keys(pkgs))
	list := make([]*pkgTime, 0, len(pkgs))
	var sumCPU float64
	for _, p := range pkgs {
		if c, ok := cpuByDir[dirs[p.name]]; ok {
			p.haveCPU, p.cpu = true, c[0]+c[1]
			sumCPU += p.cpu
		}
		list = append(list, p)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].wall > list[j].wall })
	fmt.Printf("\n%-45s %9s %9s  %s\n", "package", "wall s", "cpu s", "result")
	for _, p := range list {
		if p.result == "skip" && !p.haveCPU {
			continue // no test files
		}
		cpu := "-"
		if p.haveCPU {
			cpu = fmt.Sprintf("%.1f", p.cpu)
		}
		fmt.Printf("%-45s %9.1f %9s  %s\n", p.name, p.wall, cpu, p.result)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].wall > tests[j].wall })
	fmt.Printf("\nslowest tests (wall s):\n")
	for i, t := range tests {
		if i == *top {
			break
		}
		fmt.Printf("%8.1f  %-4s %s %s\n", t.wall, t.result, strings.TrimPrefix(t.pkg, "camellos/"), t.name)
	}
	total := func(r syscall.Rusage) float64 {
		return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
	}
	fmt.Printf("\nwall %.0f s; CPU of the test binaries %.0f s; CPU of everything go test ran (compiling too) %.0f s\n",
		wall.Seconds(), sumCPU, total(ru1)-total(ru0))
	failed := false
	for _, p := range list {
		if p.result == "fail" {
			failed = true
			fmt.Printf("FAIL %s %v\n", p.name, p.failedTests)
			if len(p.failedTests) == 0 {
				fmt.Print(strings.Join(p.lastOutput, ""))
			}
		}
	}
	if runErr != nil || failed {
		os.Exit(1)
	}
}

// runWrapped runs a test binary and logs its CPU time (it and every
// process it waited for) under the directory it ran in: the package's.
func runWrapped(logPath string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "suitetime: no test binary")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "suitetime:", err)
		return 2
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		dir, _ := os.Getwd()
		u := float64(ru.Utime.Sec) + float64(ru.Utime.Usec)/1e6
		s := float64(ru.Stime.Sec) + float64(ru.Stime.Usec)/1e6
		// One short line appended: atomic between the package processes.
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(f, "%s %.2f %.2f\n", dir, u, s)
			f.Close()
		}
	}
	return code
}

// packageDirs maps import paths to their directories (go list).
func packageDirs(pkgs []string) map[string]string {
	out := map[string]string{}
	if len(pkgs) == 0 {
		return out
	}
	b, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}"}, pkgs...)...).Output()
	if err != nil {
		return out
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.SplitN(l, " ", 2); len(f) == 2 {
			out[f[0]] = f[1]
		}
	}
	return out
}

func keys(m map[string]*pkgTime) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "suitetime:", err)
	os.Exit(2)
}
