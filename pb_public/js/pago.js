// Old links to a job's payment (and Mercado Pago's back URL of payments
// started before issue 24) go to the job page, which carries the payment
// in its #pago section and checks &pago= as this page did.
location.replace('/trabajo.html' + location.search + '#pago');
