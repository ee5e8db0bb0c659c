package jobs

import (
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/camellos"
	"camellos/modules/catalog"

	"github.com/pocketbase/pocketbase/core"
)

// MsgOnlyClients answers a non-client who tries to post a job.
const MsgOnlyClients = "Solo los clientes pueden publicar trabajos"

type createJobInput struct {
	Title        *string `json:"title"`
	Description  *string `json:"description"`
	ServiceID    *string `json:"serviceId"`
	City         *string `json:"city"`
	Neighborhood *string `json:"neighborhood"`
	CamelloID    *string `json:"camelloId"`
	Address      *string `json:"address"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// jobCreate handles POST /api/jobs: a CLIENTE posts a job. With camelloId
// naming an ACTIVO camello the job is a direct request (source PERFIL,
// provider set, still PENDIENTE until the camello accepts); otherwise it is
// open (source EXPLORE, provider null). Unknown service or camello → 400.
func jobCreate(e *core.RequestEvent) error {
	var in createJobInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	title, desc, city, hood := str(in.Title), str(in.Description), str(in.City), str(in.Neighborhood)
	serviceID, camelloID := str(in.ServiceID), str(in.CamelloID)
	httpapi.CheckLength(v, "title", title, bounds.JobTitleMin, bounds.JobTitleMax)
	httpapi.CheckLength(v, "description", desc, 0, bounds.JobDescriptionMax)
	httpapi.CheckLength(v, "city", city, bounds.CityMin, bounds.CityMax)
	httpapi.CheckLength(v, "neighborhood", hood, 0, bounds.NeighborhoodMax)
	httpapi.CheckLength(v, "address", str(in.Address), 0, MaxAddressLen)
	var service catalog.ServiceRef
	var camello *core.Record
	switch {
	case serviceID == "":
		v.Add("serviceId", "Es obligatorio")
	case !httpapi.ValidID(serviceID):
		v.Add("serviceId", "Identificador inválido")
	default:
		// Its reference (name, category) is the answer's too.
		refs, err := catalog.ServiceRefs(e.App, []string{serviceID})
		ref, ok := refs[serviceID]
		if err != nil || !ok {
			v.Add("serviceId", "Servicio no encontrado")
		}
		service = ref
	}
	if in.CamelloID != nil && camelloID != "" {
		rec, err := e.App.FindRecordById(camellos.Collection, camelloID)
		if !httpapi.ValidID(camelloID) || err != nil || camellos.Wrap(rec).Status() != camellos.StatusActive {
			v.Add("camelloId", "Camello no encontrado o no disponible")
		}
		camello = rec
	}
	if err := v.Err(); err != nil {
		return err
	}
	settle := func(bool) {}
	if camello != nil {
		// A client may direct only so many requests at one camello (the
		// quota table's "job.camello" row; "job" on the route counts all).
		s, err := ratelimit.Take(e, "job.camello", camello.Id)
		if err != nil {
			return err
		}
		settle = s
	}
	col, err := e.App.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		settle(true)
		return httpapi.Internal(err)
	}
	job := core.NewRecord(col)
	job.Set("title", title)
	job.Set("description", desc)
	job.Set("status", StatusPending)
	job.Set("source", SourceExplore)
	job.Set("city", city)
	job.Set("neighborhood", hood)
	job.Set("address", str(in.Address))
	job.Set("service", service.ID)
	client := session.AuthUser(e)
	job.Set("client", client.Id)
	if camello != nil {
		job.Set("source", SourceProfile)
		job.Set("provider", camello.Id)
	}
	err = writer.Transaction(e.App, func(txApp core.App) error {
		if err := txApp.Save(job); err != nil {
			return err
		}
		if camello == nil {
			return nil
		}
		return notifyJob(txApp, camellos.Wrap(camello).UserID(), job, KindRequest,
			"Nueva solicitud de trabajo", "Un cliente te pidió: "+title)
	})
	settle(err != nil) // a refused request used up nothing
	if err != nil {
		return err
	}
	// As saved (the hooks' values and its dates are on it), from the
	// records in hand: a new job has no review.
	out, err := OneInHand(e.App, job, client, InHand{Client: client, Provider: camello, Service: &service})
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusCreated, map[string]any{"job": out})
}
