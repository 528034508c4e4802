package localbridge

import (
	"context"
	"log/slog"
	"time"
)

// Audit events.
const (
	AuditAgentConnected    = "agent_connected"
	AuditAgentDisconnected = "agent_disconnected"
	AuditUnauthorized      = "unauthorized"      // bad, used or expired token, or wrong agent id
	AuditPeerRejected      = "peer_rejected"     // the socket's peer runs as a user not allowed
	AuditFrameTooLarge     = "frame_too_large"   // connection closed; the frame was not read
	AuditProtocolError     = "protocol_error"    // a message the Core could not accept
	AuditHeartbeatLost     = "heartbeat_lost"    // agent marked unhealthy
	AuditAgentStarted      = "agent_started"     // a supervised agent's process started
	AuditAgentExited       = "agent_exited"      // a supervised agent's process ended
	AuditApprovalGranted   = "approval_granted"  // a held call was approved
	AuditApprovalRefused   = "approval_refused"  // a held call was denied or timed out
	AuditTokenProvisioned  = "token_provisioned" // a token was issued for an agent started elsewhere
)

// AuditEvent is a security-relevant fact. It never holds message content, tool input or
// output, or a token.
type AuditEvent struct {
	Time    time.Time
	Event   string // one of the Audit* constants
	Agent   string // agent id, when known and well formed
	Session string
	Tool    string
	PeerUID int64 // -1 when unknown
	PeerPID int64 // -1 when unknown
	Size    int64 // frame size, for AuditFrameTooLarge
	Reason  string
}

// logAudit is the default audit sink: one structured log line per event.
func logAudit(log *slog.Logger, e AuditEvent) {
	level := slog.LevelInfo
	switch e.Event {
	case AuditUnauthorized, AuditPeerRejected, AuditFrameTooLarge, AuditProtocolError, AuditHeartbeatLost, AuditApprovalRefused:
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("event", e.Event)}
	if e.Agent != "" {
		attrs = append(attrs, slog.String("agent", e.Agent))
	}
	if e.Session != "" {
		attrs = append(attrs, slog.String("session", e.Session))
	}
	if e.Tool != "" {
		attrs = append(attrs, slog.String("tool", e.Tool))
	}
	if e.PeerUID >= 0 {
		attrs = append(attrs, slog.Int64("peer_uid", e.PeerUID))
	}
	if e.PeerPID > 0 {
		attrs = append(attrs, slog.Int64("peer_pid", e.PeerPID))
	}
	if e.Size > 0 {
		attrs = append(attrs, slog.Int64("size", e.Size))
	}
	if e.Reason != "" {
		attrs = append(attrs, slog.String("reason", e.Reason))
	}
	log.LogAttrs(context.Background(), level, "audit", attrs...)
}
