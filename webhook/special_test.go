package webhook

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// specialCases holds an address of every special-purpose range, and, for
// the ranges that embed IPv4, one embedding a forbidden address and one
// embedding a public address.
var specialCases = []struct {
	addr   string
	public bool
	what   string
}{
	{"0.1.2.3", false, "this network"},
	{"10.1.2.3", false, "private 10/8"},
	{"100.64.0.1", false, "shared address space"},
	{"127.0.0.2", false, "loopback"},
	{"169.254.169.254", false, "link local, metadata"},
	{"172.31.255.1", false, "private 172.16/12"},
	{"192.0.0.9", false, "IETF protocol assignments"},
	{"192.0.0.170", false, "NAT64 discovery"},
	{"192.0.2.1", false, "TEST-NET-1"},
	{"192.31.196.1", false, "AS112-v4"},
	{"192.52.193.1", false, "AMT"},
	{"192.88.99.1", false, "6to4 relay anycast"},
	{"192.168.0.1", false, "private 192.168/16"},
	{"192.175.48.1", false, "AS112 direct delegation"},
	{"198.19.0.1", false, "benchmarking"},
	{"198.51.100.1", false, "TEST-NET-2"},
	{"203.0.113.1", false, "TEST-NET-3"},
	{"224.0.0.1", false, "multicast"},
	{"240.0.0.1", false, "reserved"},
	{"255.255.255.255", false, "limited broadcast"},
	{"93.184.216.34", true, "public IPv4"},

	{"::", false, "unspecified"},
	{"::1", false, "loopback"},
	{"::a9fe:a9fe", false, "IPv4-compatible of 169.254.169.254"},
	{"::808:808", true, "IPv4-compatible of 8.8.8.8"},
	{"::ffff:127.0.0.1", false, "IPv4-mapped of loopback"},
	{"::ffff:8.8.8.8", true, "IPv4-mapped of 8.8.8.8"},
	{"::ffff:0:a9fe:a9fe", false, "IPv4-translated of 169.254.169.254"},
	{"::ffff:0:808:808", true, "IPv4-translated of 8.8.8.8"},
	{"64:ff9b::a9fe:a9fe", false, "NAT64 of 169.254.169.254"},
	{"64:ff9b::7f00:1", false, "NAT64 of loopback"},
	{"64:ff9b::808:808", true, "NAT64 of 8.8.8.8"},
	{"64:ff9b:1::808:808", false, "local-use NAT64"},
	{"100::1", false, "discard-only"},
	{"100:0:0:1::1", false, "dummy prefix"},
	{"2001:1::1", false, "IETF protocol assignments (PCP anycast)"},
	{"2001:2::1", false, "benchmarking"},
	{"2001:20::1", false, "ORCHIDv2"},
	{"2001:0:a9fe:a9fe::ffff:ffff", false, "Teredo with server 169.254.169.254"},
	{"2001:0:808:808::80ff:fffe", false, "Teredo with client 127.0.0.1 (NOT of 80ff:fffe)"},
	{"2001:0:808:808::f7f7:f7f7", true, "Teredo with server and client 8.8.8.8"},
	{"2001:db8::1", false, "documentation"},
	{"2002:a9fe:a9fe::1", false, "6to4 of 169.254.169.254"},
	{"2002:0a00:0001::1", false, "6to4 of 10.0.0.1"},
	{"2002:808:808::1", true, "6to4 of 8.8.8.8"},
	{"3fff::1", false, "documentation 3fff::/20"},
	{"5f00::1", false, "segment routing SIDs"},
	{"fd00:ec2::254", false, "unique local, AWS metadata"},
	{"fe80::1", false, "link-local"},
	{"fec0::1", false, "site-local"},
	{"ff02::1", false, "multicast"},
	{"2606:2800:220:1:248:1893:25c8:1946", true, "public IPv6"},
}

func TestPublicAddr_EverySpecialPurposeRange_RefusedOrJudgedByItsEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	for _, tt := range specialCases {
		require.Equal(t, tt.public, PublicAddr(netip.MustParseAddr(tt.addr)), "%s (%s)", tt.addr, tt.what)
	}
}

func TestCheckURL_SpecialPurposeLiterals_RefusedAtRegistration(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	strict, err := NewRegistry(RegistryConfig{Redis: b.rdb})
	require.NoError(t, err)
	for _, tt := range specialCases {
		host := tt.addr
		if netip.MustParseAddr(host).Is6() {
			host = "[" + host + "]"
		}
		_, _, err := strict.Create(b.ctx, Registration{"acme", "https://" + host + "/hook", []string{EventJobSucceeded}})
		if tt.public {
			require.NoError(t, err, "%s (%s)", tt.addr, tt.what)
		} else {
			require.Equal(t, []string{"url"}, fieldsOf(t, err), "%s (%s)", tt.addr, tt.what)
		}
	}
}

func TestControl_SpecialPurposeAddresses_RefusedAtDialTime(t *testing.T) {
	t.Parallel()
	var p TargetPolicy
	for _, tt := range specialCases {
		err := p.control(context.Background(), "tcp", netip.AddrPortFrom(netip.MustParseAddr(tt.addr), 443).String(), nil)
		if tt.public {
			require.NoError(t, err, "%s (%s)", tt.addr, tt.what)
		} else {
			require.ErrorIs(t, err, ErrForbiddenAddress, "%s (%s)", tt.addr, tt.what)
		}
	}
}

// Every range of the tables refuses its first address, unless it embeds a
// public one (the table and the cases above cannot drift apart unnoticed).
func TestSpecialTables_FirstAddressOfEveryRange_Refused(t *testing.T) {
	t.Parallel()
	for _, s := range append(append([]special{}, specialV4...), specialV6...) {
		if s.embeds != nil {
			continue
		}
		require.False(t, PublicAddr(s.prefix.Addr()), s.prefix.String())
		require.False(t, PublicAddr(s.prefix.Masked().Addr().Next()), s.prefix.String())
	}
}
