package webhook

import (
	"net/netip"
)

// The special-purpose address registries of IANA (iana-ipv4-special-registry
// and iana-ipv6-special-registry, as of 2025), plus the ranges Go's own
// predicates cover (private, loopback, link-local, multicast) and the
// deprecated IPv6 forms that still embed an IPv4 address. A delivery never
// reaches any of them without AllowPrivate, with two exceptions that are
// judged by the IPv4 address they embed instead: see special.embeds.

// special is one special-purpose range. embeds, when set, extracts the IPv4
// addresses the range's addresses stand for: such an address is public
// exactly when every one of them is (NAT64 64:ff9b::8.8.8.8 is the public
// 8.8.8.8 seen from an IPv6-only network; 64:ff9b::169.254.169.254 is the
// metadata service). A range without embeds is refused outright.
type special struct {
	prefix netip.Prefix
	embeds func(a [16]byte) []netip.Addr
}

// lastFour is the IPv4 address in the last 32 bits (RFC 6052 /96, RFC 4291
// IPv4-compatible and -mapped, RFC 2765 translated).
func lastFour(a [16]byte) []netip.Addr {
	return []netip.Addr{netip.AddrFrom4([4]byte(a[12:16]))}
}

// sixToFour is the IPv4 address in bits 16-47 of a 6to4 address (RFC 3056).
func sixToFour(a [16]byte) []netip.Addr {
	return []netip.Addr{netip.AddrFrom4([4]byte(a[2:6]))}
}

// teredo is the Teredo server (bits 32-63) and the client, whose IPv4
// address is the bitwise NOT of the last 32 bits (RFC 4380 §4).
func teredo(a [16]byte) []netip.Addr {
	var client [4]byte
	for i := range client {
		client[i] = ^a[12+i]
	}
	return []netip.Addr{netip.AddrFrom4([4]byte(a[4:8])), netip.AddrFrom4(client)}
}

func prefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// specialV4 is the IPv4 registry, every row (the globally reachable ones too:
// anycast relays and AS112 servers are no webhook receivers), and 224/4.
var specialV4 = []special{
	{prefix: prefix("0.0.0.0/8")},          // "this network" (RFC 791)
	{prefix: prefix("10.0.0.0/8")},         // private (RFC 1918)
	{prefix: prefix("100.64.0.0/10")},      // shared address space, carrier-grade NAT (RFC 6598)
	{prefix: prefix("127.0.0.0/8")},        // loopback (RFC 1122)
	{prefix: prefix("169.254.0.0/16")},     // link local (RFC 3927), cloud metadata
	{prefix: prefix("172.16.0.0/12")},      // private (RFC 1918)
	{prefix: prefix("192.0.0.0/24")},       // IETF protocol assignments (RFC 6890), DS-Lite, NAT64 discovery
	{prefix: prefix("192.0.2.0/24")},       // documentation TEST-NET-1 (RFC 5737)
	{prefix: prefix("192.31.196.0/24")},    // AS112-v4 (RFC 7535)
	{prefix: prefix("192.52.193.0/24")},    // AMT (RFC 7450)
	{prefix: prefix("192.88.99.0/24")},     // deprecated 6to4 relay anycast (RFC 7526)
	{prefix: prefix("192.168.0.0/16")},     // private (RFC 1918)
	{prefix: prefix("192.175.48.0/24")},    // direct delegation AS112 service (RFC 7534)
	{prefix: prefix("198.18.0.0/15")},      // benchmarking (RFC 2544)
	{prefix: prefix("198.51.100.0/24")},    // documentation TEST-NET-2 (RFC 5737)
	{prefix: prefix("203.0.113.0/24")},     // documentation TEST-NET-3 (RFC 5737)
	{prefix: prefix("224.0.0.0/4")},        // multicast (RFC 5771)
	{prefix: prefix("240.0.0.0/4")},        // reserved (RFC 1112)
	{prefix: prefix("255.255.255.255/32")}, // limited broadcast (RFC 919)
}

// specialV6 is the IPv6 registry, the deprecated embedding forms and the
// non-global ranges of the address space. The longest matching prefix
// decides (Teredo 2001::/32 inside 2001::/23).
var specialV6 = []special{
	{prefix: prefix("::/96"), embeds: lastFour},           // IPv4-compatible, deprecated (RFC 4291); holds :: and ::1
	{prefix: prefix("::ffff:0:0/96"), embeds: lastFour},   // IPv4-mapped (RFC 4291)
	{prefix: prefix("::ffff:0:0:0/96"), embeds: lastFour}, // IPv4-translated (RFC 2765)
	{prefix: prefix("64:ff9b::/96"), embeds: lastFour},    // NAT64 well-known prefix (RFC 6052)
	{prefix: prefix("64:ff9b:1::/48")},                    // local-use NAT64 (RFC 8215): any embedding, not global
	{prefix: prefix("100::/64")},                          // discard-only (RFC 6666)
	{prefix: prefix("100:0:0:1::/64")},                    // dummy IPv6 prefix (RFC 9780)
	{prefix: prefix("2001::/23")},                         // IETF protocol assignments (RFC 2928), ORCHID, benchmarking 2001:2::/48
	{prefix: prefix("2001::/32"), embeds: teredo},         // Teredo (RFC 4380)
	{prefix: prefix("2001:db8::/32")},                     // documentation (RFC 3849)
	{prefix: prefix("2002::/16"), embeds: sixToFour},      // 6to4 (RFC 3056)
	{prefix: prefix("3fff::/20")},                         // documentation (RFC 9637)
	{prefix: prefix("5f00::/16")},                         // segment routing SIDs (RFC 9602)
	{prefix: prefix("fc00::/7")},                          // unique local (RFC 4193), AWS metadata fd00:ec2::254
	{prefix: prefix("fe80::/10")},                         // link-local unicast (RFC 4291)
	{prefix: prefix("fec0::/10")},                         // site-local, deprecated (RFC 3879)
	{prefix: prefix("ff00::/8")},                          // multicast (RFC 4291)
}

// specialRange returns the most specific special-purpose range holding ip.
func specialRange(ip netip.Addr) (special, bool) {
	table := specialV4
	if ip.Is6() {
		table = specialV6
	}
	var best special
	found := false
	for _, s := range table {
		if s.prefix.Contains(ip) && (!found || s.prefix.Bits() > best.prefix.Bits()) {
			best, found = s, true
		}
	}
	return best, found
}

// publicSpecial judges an address in a special-purpose range: public only
// when the range embeds IPv4 addresses and every one of them is public.
func publicSpecial(ip netip.Addr) (public, special bool) {
	s, ok := specialRange(ip)
	if !ok {
		return false, false
	}
	if s.embeds == nil {
		return false, true
	}
	for _, v4 := range s.embeds(ip.As16()) {
		if !PublicAddr(v4) {
			return false, true
		}
	}
	return true, true
}
