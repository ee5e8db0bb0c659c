package auth

import (
	"errors"
	"fmt"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/cli"
	"camellos/internal/text"
	"camellos/modules/users"

	"github.com/go-ozzo/ozzo-validation/v4/is"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// AdminCommand is `admin create EMAIL PASSWORD [--name NAME]`: it creates a
// user with role ADMIN, or updates the existing user with that e-mail
// (role, password, name), on the data dir given by --dir.
func AdminCommand(app core.App) *cobra.Command {
	root := &cobra.Command{Use: "admin", Short: "Administradores de Camellos"}
	var name string
	create := &cobra.Command{
		Use:          "create EMAIL PASSWORD",
		Short:        "Crea o actualiza un usuario con rol ADMIN",
		Args:         cobra.ArbitraryArgs,
		SilenceUsage: true,
		Run: func(cmd *cobra.Command, args []string) {
			cli.RunCommand(app, func() error {
				if len(args) != 2 {
					return errors.New("uso: admin create CORREO CLAVE [--name NOMBRE]")
				}
				user, created, err := UpsertAdmin(app, args[0], args[1], name)
				if err != nil {
					return err
				}
				verb := "actualizado"
				if created {
					verb = "creado"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Administrador %s %s (id %s)\n", user.Email(), verb, user.Id)
				return nil
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "nombre visible (por defecto: la parte del correo antes de @)")
	root.AddCommand(create)
	return root
}

// UpsertAdmin creates or updates an ADMIN user; it reports whether the user
// is new.
func UpsertAdmin(app core.App, email, password, name string) (*core.Record, bool, error) {
	email = NormalizeEmail(email)
	if email == "" || is.EmailFormat.Validate(email) != nil || !strings.Contains(email, "@") {
		return nil, false, fmt.Errorf("correo inválido %q", email)
	}
	if n := text.Chars(password); n < bounds.PasswordMin || n > bounds.PasswordMax {
		return nil, false, errors.New("la clave debe tener de 8 a 128 caracteres")
	}
	name = strings.TrimSpace(name)
	if n := text.Chars(name); name != "" && (n < bounds.NameMin || n > bounds.NameMax) {
		return nil, false, errors.New("the name must have 2 to 120 characters")
	}
	if name != "" && !text.Visible(name) {
		return nil, false, errors.New("the name must have a visible letter")
	}
	if name == "" {
		if u, err := users.FindByEmail(app, email); err != nil || users.Wrap(u).Name() == "" {
			name = email[:strings.Index(email, "@")]
		}
	}
	user, created, err := users.EnsureAdmin(app, email, name, password)
	if err != nil {
		return nil, false, err
	}
	return user.Record, created, nil
}
