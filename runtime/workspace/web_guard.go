package workspace

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// dial connects to address, a host and port, through the guard: it
// resolves the host, refuses it when any of its addresses is one the
// options do not allow, and connects to the checked addresses themselves,
// so that a second lookup cannot give another answer.
func (f *fetch) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	var d net.Dialer
	if a, ok := f.opts.testPublic[name]; ok {
		return d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
	}
	if !f.opts.AllowPrivate && name == "metadata.google.internal" {
		return nil, &guardError{host: host, why: "a cloud metadata service, which hands out this machine's credentials"}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
	}
	if !f.opts.AllowPrivate {
		for _, a := range addrs {
			if why := refusedAddr(a); why != "" {
				return nil, &guardError{host: host, addr: a.Unmap(), why: why}
			}
		}
	}
	var first error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if first == nil {
		first = fmt.Errorf("%s has no address", host)
	}
	return nil, first
}

// guardError is a connection the guard refused.
type guardError struct {
	host string
	// addr is the refused address; invalid when the name itself was
	// refused.
	addr netip.Addr
	why  string
}

// Error names the host, the refused address when it is not the host
// itself, and why it was refused: "localhost, whose address 127.0.0.1 is a
// loopback address, which …".
func (e *guardError) Error() string {
	if !e.addr.IsValid() || e.addr.String() == e.host {
		return fmt.Sprintf("%s, %s", e.host, e.why)
	}
	return fmt.Sprintf("%s, whose address %s is %s", e.host, e.addr, e.why)
}

// Prefixes the guard refuses beyond what netip classifies.
var (
	metadataV4 = netip.MustParseAddr("169.254.169.254")
	metadataV6 = netip.MustParseAddr("fd00:ec2::254")
	thisNet    = netip.MustParsePrefix("0.0.0.0/8")
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	reserved4  = netip.MustParsePrefix("240.0.0.0/4")
	compat6    = netip.MustParsePrefix("::/96")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
)

// refusedAddr returns why a is an address web_fetch does not connect to
// unless private addresses are allowed, or "" when it may.
func refusedAddr(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a == metadataV4 || a.WithZone("") == metadataV6:
		return "a cloud metadata service address, which hands out this machine's credentials"
	case a.IsUnspecified() || thisNet.Contains(a):
		return "an unspecified address (0.0.0.0/8 or ::), which reaches this machine"
	case a.IsLoopback():
		return "a loopback address, which reaches this machine itself"
	case a.IsPrivate():
		return "a private network address (RFC 1918 or RFC 4193)"
	case a.IsLinkLocalUnicast():
		return "a link-local address (169.254.0.0/16 or fe80::/10)"
	case a.IsMulticast():
		return "a multicast address"
	case cgnat.Contains(a):
		return "a carrier-grade NAT address (100.64.0.0/10), shared by a provider's private network"
	case reserved4.Contains(a) || compat6.Contains(a.WithZone("")):
		return "a reserved address"
	case nat64.Contains(a.WithZone("")):
		b := a.As16()
		inner := netip.AddrFrom4([4]byte(b[12:]))
		if why := refusedAddr(inner); why != "" {
			return fmt.Sprintf("a NAT64 address for %s, which is %s", inner, why)
		}
	}
	return ""
}
