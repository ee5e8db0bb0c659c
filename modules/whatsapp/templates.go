package whatsapp

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Template categories as Meta reviews them.
const (
	CategoryUtility        = "UTILITY"
	CategoryAuthentication = "AUTHENTICATION"
)

// Language is the language code of every template (Spanish; Meta has no
// es_CO variant).
const Language = "es"

// Template is one message template as it is submitted to Meta for review
// (docs/whatsapp-templates.md lists them in that form; a test keeps the
// two in step): name, category, language, the body with its {{n}}
// parameters, and one example value per parameter.
type Template struct {
	Name     string
	Category string
	Body     string
	Example  []string
	// Kinds are the notification kinds sent with this template.
	Kinds []string
	// Button is the text of the authentication template's copy-code button.
	Button string
}

// Params is how many {{n}} parameters the body has.
func (t Template) Params() int { return len(t.Example) }

// optOut closes every notice: how to stop them, in the message itself.
const optOut = "Puedes dejar de recibir estos avisos por WhatsApp en Camellos, en Notificaciones → Preferencias."

// The templates. Every notice template takes, in order, the notification's
// title, its text and the link to open; the digest takes the count of
// messages first. Meta refuses a body that starts or ends with a parameter:
// each ends with optOut.
var (
	TemplateReminder = Template{
		Name: "camellos_recordatorio_cita", Category: CategoryUtility,
		Body:    "Hola, te recordamos tu cita en Camellos.\n\n*{{1}}*\n{{2}}\n\nMira los detalles o avisa si no puedes ir: {{3}}\n\n" + optOut,
		Example: []string{"Recordatorio de cita", "Tu cita del trabajo Arreglo de tubería es mañana, jueves 26 de noviembre, a las 9:00 a. m.", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"APPOINTMENT_REMINDER"},
	}
	TemplateQuoteReceived = Template{
		Name: "camellos_cotizacion_nueva", Category: CategoryUtility,
		Body:    "Tienes una nueva cotización en Camellos.\n\n*{{1}}*\n{{2}}\n\nCompárala y elige a tu camello aquí: {{3}}\n\n" + optOut,
		Example: []string{"Nueva cotización", "Carlos Pérez cotizó tu trabajo: Pintura de apartamento", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"QUOTE_RECEIVED"},
	}
	TemplateQuoteAccepted = Template{
		Name: "camellos_cotizacion_aceptada", Category: CategoryUtility,
		Body:    "¡Buenas noticias! Aceptaron tu cotización en Camellos.\n\n*{{1}}*\n{{2}}\n\nMira el trabajo y acuerda la cita: {{3}}\n\n" + optOut,
		Example: []string{"Cotización aceptada", "Ana Gómez aceptó tu cotización para Pintura de apartamento", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"QUOTE_ACCEPTED"},
	}
	TemplateBookingChange = Template{
		Name: "camellos_cambio_cita", Category: CategoryUtility,
		Body:    "Hubo un cambio en tu agenda de Camellos.\n\n*{{1}}*\n{{2}}\n\nRevisa la cita: {{3}}\n\n" + optOut,
		Example: []string{"Cita reprogramada", "La cita del trabajo Arreglo de tubería pasó del jueves 26 de noviembre, 9:00 a. m., al viernes 27 de noviembre, 2:00 p. m.", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"APPOINTMENT_BOOKED", "APPOINTMENT_RESCHEDULED"},
	}
	TemplatePayment = Template{
		Name: "camellos_movimiento_dinero", Category: CategoryUtility,
		Body:    "Hay un movimiento de dinero en tu cuenta de Camellos.\n\n*{{1}}*\n{{2}}\n\nConsulta el detalle: {{3}}\n\n" + optOut,
		Example: []string{"Pago recibido", "Recibimos $180.000 por el trabajo Arreglo de tubería; los guardamos hasta que el trabajo termine.", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"PAYMENT"},
	}
	TemplateDigest = Template{
		Name: "camellos_resumen_conversacion", Category: CategoryUtility,
		Body:    "Tienes mensajes nuevos en Camellos: {{1}}.\n\n*{{2}}*\nÚltimo mensaje: {{3}}\n\nLee y responde la conversación: {{4}}\n\n" + optOut,
		Example: []string{"3 mensajes", "Mensaje de Carlos Pérez", "Llego a las 9 con los materiales, ¿le parece bien?", "https://camellos.co/trabajo.html?id=k2x9d1m0q7w3e5r"},
		Kinds:   []string{"MESSAGE"},
	}
	// TemplateCode is the phone confirmation: an authentication template
	// (Meta fixes its wording per language; the code is its one parameter,
	// repeated in the copy-code button).
	TemplateCode = Template{
		Name: "camellos_codigo_verificacion", Category: CategoryAuthentication,
		Body:    "*{{1}}* es tu código de verificación. Por tu seguridad, no lo compartas. Este código caduca en 10 minutos.",
		Example: []string{"482913"},
		Button:  "Copiar código",
	}
)

// Templates lists every template the service sends.
var Templates = []Template{
	TemplateReminder, TemplateQuoteReceived, TemplateQuoteAccepted, TemplateBookingChange,
	TemplatePayment, TemplateDigest, TemplateCode,
}

// KindCode is the outbox kind of a confirmation code.
const KindCode = "CODIGO"

// templateOf is the template of a notification kind (false: the kind does
// not go out on WhatsApp).
func templateOf(kind string) (Template, bool) {
	for _, t := range Templates {
		for _, k := range t.Kinds {
			if k == kind {
				return t, true
			}
		}
	}
	return Template{}, false
}

// Handles reports whether notifications of kind go out on WhatsApp (the
// kinds with a template): the preferences offer the channel only for them.
func Handles(kind string) bool {
	_, ok := templateOf(kind)
	return ok
}

// maxParamRunes bounds one parameter: the whole body may not pass Meta's
// 1,024 characters, and a notice's text is shortened, not refused.
const maxParamRunes = 240

// param makes s a template parameter as Meta accepts it: no newline or
// tab, never more than four spaces in a row (here: one), not empty, at
// most maxParamRunes characters (cut at a rune, with "…").
func param(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) > maxParamRunes {
		r := []rune(s)
		s = strings.TrimRight(string(r[:maxParamRunes-1]), " ") + "…"
	}
	return s
}

// noticeParams are the parameters of a notification kind's template:
// title, text, link; the digest's count first.
func noticeParams(t Template, n Notice) []string {
	out := []string{param(n.Title), param(n.Body), param(n.Link)}
	if t.Name == TemplateDigest.Name {
		count := max(n.Count, 1)
		word := "mensajes"
		if count == 1 {
			word = "mensaje"
		}
		out = append([]string{strconv.Itoa(count) + " " + word}, out...)
	}
	return out
}
