package main

import "net/http"

// quoteReads are the read scenarios of the quotes branch: a job's quotes
// and a job's conversation, as the job's client.
func quoteReads(ds *dataset, svc *service) []scenario {
	return []scenario{
		{name: "quotes-list", next: func() *http.Request {
			return cookieGet(svc.base, "/api/jobs/"+ds.QuoteJob+"/quotes", ds.QuoteCookie)
		}},
		{name: "messages-list", next: func() *http.Request {
			return cookieGet(svc.base, "/api/jobs/"+ds.MessageJob+"/messages", ds.MessageCookie)
		}},
	}
}
