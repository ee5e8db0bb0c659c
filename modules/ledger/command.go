package ledger

import (
	"errors"
	"fmt"

	"camellos/internal/cli"

	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Command is `camellos ledger`: `verify` re-derives every balance and
// exits non-zero when the ledger does not balance.
func Command(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "ledger", Short: "Libro contable de doble partida"}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify",
		Short: "Comprueba que el libro cuadra (sale con código distinto de cero si no)",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			cli.RunCommand(app, func() error {
				r, err := Verify(app)
				if err != nil {
					return err
				}
				fmt.Fprint(c.OutOrStdout(), r.String())
				if !r.OK() {
					return errors.New("el libro contable no cuadra")
				}
				fmt.Fprintln(c.OutOrStdout(), "el libro contable cuadra")
				return nil
			})
		},
	})
	return cmd
}
