package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// TargetPolicy says which URLs an endpoint may have and which addresses a
// delivery may connect to. The zero policy is the safe one: https only, and
// public unicast addresses only.
type TargetPolicy struct {
	// AllowInsecure permits http:// URLs (RELAYOPS_WEBHOOK_ALLOW_INSECURE).
	AllowInsecure bool
	// AllowPrivate permits private, loopback, link-local and metadata
	// addresses (RELAYOPS_WEBHOOK_ALLOW_PRIVATE): for tests and local demos.
	AllowPrivate bool
}

// Problems with a target, as sentinels a caller can test for.
var (
	// ErrBadURL: not an absolute http(s) URL with a host, or it carries
	// credentials or a fragment.
	ErrBadURL = errors.New("webhook: url must be an absolute https URL with a host, without credentials or fragment")
	// ErrInsecureURL: http:// without AllowInsecure.
	ErrInsecureURL = errors.New("webhook: url must use https")
	// ErrForbiddenAddress: the host is, or resolves to, a private,
	// loopback, link-local, metadata or otherwise non-public address.
	ErrForbiddenAddress = errors.New("webhook: url resolves to a private, loopback, link-local or metadata address")
)

// maxURLLength bounds an endpoint URL.
const maxURLLength = 2048

// CheckURL checks an endpoint URL against the policy, resolving its host
// with resolver (nil: net.DefaultResolver) unless private targets are
// allowed. Registration calls it; deliveries check again at connect time
// (a name may resolve elsewhere later).
func (p TargetPolicy) CheckURL(ctx context.Context, raw string, resolver *net.Resolver) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > maxURLLength || !u.IsAbs() || u.Host == "" || u.Hostname() == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return ErrBadURL
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !p.AllowInsecure {
			return ErrInsecureURL
		}
	default:
		return ErrBadURL
	}
	if p.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !PublicAddr(ip) {
			return ErrForbiddenAddress
		}
		return nil
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("webhook: url host does not resolve: %w", err)
	}
	for _, a := range addrs {
		if !PublicAddr(a) {
			return ErrForbiddenAddress
		}
	}
	return nil
}

// metadataAddrs are cloud metadata services outside the ranges below.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack (also link-local)
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IPv6 (also unique local)
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud (shared address space)
}

// PublicAddr reports whether ip is a public unicast address: in no
// special-purpose range of the IANA registries (private, loopback,
// link-local, shared, documentation, benchmarking, reserved, multicast, ...;
// see special.go), and no metadata service. An address of a range that
// embeds IPv4 (IPv4-mapped and -compatible, NAT64 64:ff9b::/96, 6to4,
// Teredo, translated) is judged by the IPv4 addresses it embeds.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.WithZone("") // a zoned address matches no prefix
	if !ip.IsValid() {
		return false
	}
	if public, ok := publicSpecial(ip); ok {
		return public
	}
	if ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsGlobalUnicast() {
		return false
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return false
		}
	}
	return true
}

// control refuses, at connect time, an address the policy forbids: the
// check runs on the address actually dialled, after DNS, so a name that
// resolves to 127.0.0.1 (or is re-pointed there later) is refused too.
func (p TargetPolicy) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !PublicAddr(ap.Addr()) {
		return ErrForbiddenAddress
	}
	return nil
}

// errRedirect is what the client answers to a redirect: deliveries never
// follow one (it could point anywhere, including inside the network).
var errRedirect = errors.New("webhook: redirects are not followed")

// ClientTimeouts bound the phases of a delivery request. A receiver that
// accepts connections and never answers is found out after Header, not
// Total, so it holds a delivery slot for seconds, not the whole attempt.
type ClientTimeouts struct {
	// Connect bounds the TCP connect and the TLS handshake, each.
	Connect time.Duration
	// Header bounds the wait for the response headers once the request is
	// written.
	Header time.Duration
	// Total bounds the whole request, body included.
	Total time.Duration
}

// NewClient returns the HTTP client deliveries use: the policy checked on
// every connection, no redirects, no proxy, no keep-alive reuse across
// endpoints beyond the transport's pool, and t's timeouts.
func (p TargetPolicy) NewClient(t ClientTimeouts) *http.Client {
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second, ControlContext: p.control}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, unchecked
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   t.Connect,
		ResponseHeaderTimeout: t.Header,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   t.Total,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errRedirect
		},
	}
}

// refused reports whether err is the policy refusing the target.
func refused(err error) bool {
	return errors.Is(err, ErrForbiddenAddress) || strings.Contains(fmt.Sprint(err), ErrForbiddenAddress.Error())
}
