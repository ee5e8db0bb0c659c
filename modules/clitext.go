package modules

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobraMessages reword cobra's and PocketBase's English command-line
// errors in Spanish (the CLI's users read Spanish, as the web front's do).
var cobraMessages = []struct {
	re  *regexp.Regexp
	out string
}{
	{regexp.MustCompile(`^unknown command "(.*)" for "(.*)"`), `orden desconocida "$1" para "$2"`},
	{regexp.MustCompile(`^unknown flag: (.*)`), `opción desconocida: $1`},
	{regexp.MustCompile(`^unknown shorthand flag: '(.)' in (.*)`), `opción corta desconocida: '$1' en $2`},
	{regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: .*`), `valor inválido "$1" para la opción "$2"`},
	{regexp.MustCompile(`^flag needs an argument: (.*)`), `la opción necesita un valor: $1`},
	{regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)`), `se esperaban $1 argumento(s), se recibieron $2`},
	{regexp.MustCompile(`^accepts at most (\d+) arg\(s\), received (\d+)`), `se esperaban como máximo $1 argumento(s), se recibieron $2`},
	{regexp.MustCompile(`^requires at least (\d+) arg\(s\), only received (\d+)`), `se esperaban al menos $1 argumento(s), se recibieron $2`},
	{regexp.MustCompile(`^accepts between (\d+) and (\d+) arg\(s\), received (\d+)`), `se esperaban entre $1 y $2 argumentos, se recibieron $3`},
	{regexp.MustCompile(`^"(.*)" needs a subcommand`), `"$1" necesita una suborden`},
	{regexp.MustCompile(`(?i)^unsupported command:? ?(.*)`), `orden de migrate no soportada $1 (use up, down, create, collections o history-sync)`},
}

// spanish rewords a command-line error in Spanish (others are already ours).
func spanish(err error) string {
	msg := err.Error()
	for _, m := range cobraMessages {
		if m.re.MatchString(msg) {
			return m.re.ReplaceAllString(msg, m.out)
		}
	}
	return msg
}

// checkServeAddress fails before anything is created when `serve` cannot
// listen on its address (a busy port): PocketBase would bootstrap (create
// the data dir, run the migrations) and only then find out.
func checkServeAddress(c *cobra.Command, args []string) error {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.Usage = func() {}
	httpAddr := fs.String("http", "", "")
	httpsAddr := fs.String("https", "", "")
	fs.StringSlice("origins", nil, "")
	fs.String("dir", "", "")
	fs.String("encryptionEnv", "", "")
	fs.String("queryTimeout", "", "")
	fs.Bool("dev", false, "")
	fs.BoolP("help", "h", false, "")
	if err := fs.Parse(args); err != nil {
		return nil // cobra reports it
	}
	var domains []string
	for _, a := range fs.Args() {
		if a != c.Name() {
			domains = append(domains, a)
		}
	}
	addrs := []string{*httpAddr, *httpsAddr}
	if *httpAddr == "" {
		addrs[0] = "127.0.0.1:8090"
		if len(domains) > 0 {
			addrs[0], addrs[1] = "0.0.0.0:80", "0.0.0.0:443"
		}
	}
	for _, a := range addrs {
		if a == "" {
			continue
		}
		l, err := net.Listen("tcp", a)
		if err != nil {
			if strings.Contains(err.Error(), "address already in use") {
				return fmt.Errorf("no se puede escuchar en %s: la dirección ya está en uso (address already in use; ¿otro servicio en ese puerto?)", a)
			}
			return fmt.Errorf("no se puede escuchar en %s: %v", a, err)
		}
		l.Close()
	}
	return nil
}

// needsData are the commands that read an existing data dir: on a missing
// one they fail instead of creating an empty one.
var needsData = map[string]bool{"backup list": true, "backup create": true, "reminders send": true}

func checkDataDir(c *cobra.Command, dir string) error {
	path := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	if !needsData[path] {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("el directorio de datos %s no existe (indique --dir con el de su servicio)", dir)
	}
	return nil
}
