package directory

import (
	"fmt"
	"math"
	"time"
)

// UptimeWindow is the span uptime_30d covers.
const UptimeWindow = 30 * 24 * time.Hour

// Status is an agent's reported or observed health.
type Status string

// The statuses of pong replies and health reports.
const (
	StatusAlive          Status = "alive"
	StatusHealthy        Status = "healthy"
	StatusDegraded       Status = "degraded"
	StatusUnhealthy      Status = "unhealthy"
	StatusOffline        Status = "offline"
	StatusDecommissioned Status = "decommissioned"
)

// ParseStatus reads a status. It also accepts "decomissioned", the
// spelling of the discovery specification's table.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case StatusAlive, StatusHealthy, StatusDegraded, StatusUnhealthy, StatusOffline, StatusDecommissioned:
		return Status(s), nil
	case "decomissioned":
		return StatusDecommissioned, nil
	}
	return "", fieldErr("status", "unknown status %q", s)
}

// Up reports whether an observation with this status counts as up time:
// alive, healthy and degraded do; unhealthy, offline and decommissioned
// do not.
func (s Status) Up() bool {
	return s == StatusAlive || s == StatusHealthy || s == StatusDegraded
}

// Searchable reports whether an agent whose latest status is s may appear
// in search results: offline and decommissioned agents do not.
func (s Status) Searchable() bool {
	return s != StatusOffline && s != StatusDecommissioned
}

// Heartbeat is one liveness observation: a pong to the registry's ping, a
// local agent's heartbeat, or a failed ping recorded as offline.
type Heartbeat struct {
	At                 time.Time // when observed; zero for the store's now, later than now is taken as now
	Status             Status
	Load               float64 // 0..1
	QueueDepth         int
	CapabilitiesActive []string
}

// Validate checks a heartbeat's fields.
func (h *Heartbeat) Validate() error {
	if _, err := ParseStatus(string(h.Status)); err != nil {
		return err
	}
	if math.IsNaN(h.Load) || h.Load < 0 || h.Load > 1 {
		return fieldErr("load", "want a number from 0 to 1")
	}
	if h.QueueDepth < 0 {
		return fieldErr("queue_depth", "must not be negative")
	}
	if len(h.CapabilitiesActive) > MaxCapabilities {
		return fieldErr("capabilities_active", "more than %d", MaxCapabilities)
	}
	for i, c := range h.CapabilitiesActive {
		if err := CheckCapability(c); err != nil {
			return fieldErr(fmt.Sprintf("capabilities_active[%d]", i), "%v", err)
		}
	}
	return nil
}

// Liveness is what the directory knows of an agent's health.
//
// Uptime30d is the mean, over the hours of the last 30 days in which the
// agent was observed at all, of the share of that hour's observations
// that were up. Hours without any observation do not count either way: a
// monitor that pings an agent and gets no answer records StatusOffline.
// Storage is one row per agent per observed hour, pruned by Sweep; the
// figure is exact as of the last Sweep.
type Liveness struct {
	Status             Status
	Load               float64
	QueueDepth         int
	CapabilitiesActive []string
	FirstSeen          time.Time // first observation on record
	LastSeen           time.Time
	Uptime30d          float64
	ObservedHours      int // hours behind Uptime30d
}
