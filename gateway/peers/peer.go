package peers

import (
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Peer is an imported peer organisation, as its peer file holds it.
type Peer struct {
	Org      string             `json:"org"`
	OrgKey   keys.Ed25519Public `json:"org_key"`
	EncKey   keys.X25519Public  `json:"enc_key"`
	Endpoint string             `json:"endpoint"`
	GRPC     string             `json:"grpc"`
	TLSPin   string             `json:"tls_pin,omitempty"`
	// TLSPrevious is the pin TLSPin replaced in a TLS handover the peer's
	// org key signed, still accepted until TLSUntil.
	TLSPrevious string     `json:"tls_pin_previous,omitempty"`
	TLSUntil    time.Time  `json:"tls_pin_until,omitzero"`
	MaxCls      wire.Class `json:"max_cls"`
	ImportedAt  time.Time  `json:"imported_at"`
}

// TLSPins are the pins a TLS handshake with the peer may present at now:
// TLSPin, and TLSPrevious until TLSUntil.
func (p *Peer) TLSPins(now time.Time) []string {
	if p.TLSPrevious != "" && now.Before(p.TLSUntil) {
		return []string{p.TLSPin, p.TLSPrevious}
	}
	return []string{p.TLSPin}
}

// SameTransport reports whether a and b reach and authenticate the same
// gateway the same way, so that connections made for a serve b.
func SameTransport(a, b *Peer) bool {
	return a.OrgKey.Equal(b.OrgKey) && a.EncKey.Equal(b.EncKey) && a.Endpoint == b.Endpoint &&
		a.GRPC == b.GRPC && a.TLSPin == b.TLSPin && a.TLSPrevious == b.TLSPrevious && a.TLSUntil.Equal(b.TLSUntil)
}

// Transports for calls to peers.
const (
	TransportWebSocket = "websocket"
	TransportGRPC      = "grpc"
	TransportHTTP      = "http"
)
