package ops

import (
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// NoBootstrap marks a command that must not open the data dir.
const NoBootstrap = "camellos.noBootstrap"

// HealthCommand is `healthcheck [--url URL] [--wait D]`: exit 0 when the
// service answers 200 on its health route within 5 s, else 1 (the container
// image's HEALTHCHECK; the image has no shell or curl). With --wait it asks
// again until D has passed (right after `systemctl start`, the service is
// still applying migrations). It opens no data.
func HealthCommand() *cobra.Command {
	var url string
	var wait time.Duration
	c := &cobra.Command{
		Use:         "healthcheck",
		Short:       "Comprueba que el servicio responde (GET /api/health); sale 0 o 1",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{NoBootstrap: "1"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if wait < 0 {
				return fmt.Errorf("--wait no puede ser negativo: %s", wait)
			}
			client := &http.Client{Timeout: 5 * time.Second}
			deadline := time.Now().Add(wait)
			for {
				err := check(client, url)
				if err == nil {
					fmt.Fprintln(cmd.OutOrStdout(), "ok")
					return nil
				}
				if !time.Now().Before(deadline) {
					return err
				}
				time.Sleep(250 * time.Millisecond)
			}
		},
	}
	c.Flags().StringVar(&url, "url", "http://127.0.0.1:8090/api/health", "URL de salud del servicio")
	c.Flags().DurationVar(&wait, "wait", 0, "reintentar hasta este plazo (p. ej. 60s) si aún no responde")
	return c
}

// check asks the health route once.
func check(client *http.Client, url string) error {
	res, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("el servicio no responde en %s: %v", url, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("el servicio respondió %d en %s", res.StatusCode, url)
	}
	return nil
}
