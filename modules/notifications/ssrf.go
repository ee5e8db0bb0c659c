package notifications

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"camellos/internal/config"

	"github.com/pocketbase/pocketbase/core"
)

// Push endpoints are URLs a user gives us and the service then calls: they
// must lead to the public Internet, never to the service's own network.
// Private targets are refused twice: at subscription (literal addresses,
// localhost names, and names that resolve to private addresses) and at
// dial time, after DNS resolution, in the dialer's Control hook (so DNS
// rebinding and stored endpoints are covered). Redirects are never
// followed. WEBPUSH_ALLOW_PRIVATE=1 lifts the address check (tests,
// self-hosted push services).

// errPrivateTarget is the dial refusal of a non-public address.
var errPrivateTarget = errors.New("push: destino privado rechazado")

// msgEndpointPrivate is the field message of a private push endpoint.
const msgEndpointPrivate = "Debe apuntar a un servicio push público (no a direcciones locales o privadas)"

// cgnat is the shared address space (100.64.0.0/10, RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// nonPublic are further ranges that are never a push service.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64 (maps onto IPv4, private ones too)
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2002::/16"),      // 6to4 (embeds any IPv4)
	netip.MustParsePrefix("2001::/32"),      // Teredo
	netip.MustParsePrefix("100::/64"),       // discard-only
}

// privateAddr reports whether ip is not a public unicast address:
// loopback, private (RFC 1918, IPv6 ULA), link-local, shared (100.64/10),
// multicast, unspecified, broadcast and other special ranges.
func privateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip) {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// localName reports whether host is a name for this machine.
func localName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost.localdomain"
}

// privateEndpoint reports whether a push endpoint URL leads to a private
// target: a literal private address, a local name, or a name that
// resolves (within a second) to any private address. A name that does not
// resolve now passes: the dial-time check still guards it.
func privateEndpoint(ctx context.Context, endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return true
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return privateAddr(ip)
	}
	if localName(host) {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if privateAddr(a) {
			return true
		}
	}
	return false
}

// refusePrivate is the dialer's Control hook: it runs after resolution,
// on the very address about to be connected, for every connection attempt.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return errPrivateTarget
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || privateAddr(ip) {
		return errPrivateTarget
	}
	return nil
}

// guardTransport returns a copy of base whose connections refuse private
// addresses (and that uses no proxy, which would hide the target).
func guardTransport(base *http.Transport) *http.Transport {
	t := base.Clone()
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: refusePrivate}
	t.DialContext = d.DialContext
	t.Proxy = nil
	return t
}

// noRedirect makes a client return a redirect answer as it is.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// pushClient is the HTTP client of Web Push deliveries: base (the default
// or an injected one) that never follows redirects and, unless
// WEBPUSH_ALLOW_PRIVATE is set, dials public addresses only.
func pushClient(app core.App, base *http.Client) *http.Client {
	c := *base
	c.CheckRedirect = noRedirect
	if config.Of(app).WebPushAllowPrivate {
		return &c
	}
	tr, ok := c.Transport.(*http.Transport)
	if c.Transport == nil {
		tr, ok = http.DefaultTransport.(*http.Transport), true
	}
	if ok {
		c.Transport = guardTransport(tr)
	} else {
		// A transport we cannot guard: fall back to a guarded default one.
		c.Transport = guardTransport(http.DefaultTransport.(*http.Transport))
	}
	return &c
}
