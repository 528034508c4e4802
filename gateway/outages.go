package gateway

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moltgate/moltgate/internal/outage"
)

// newOutages watches the gateway's stores while serving: a failure is
// logged at ERROR with its cause in plain words, counted in
// moltgate_storage_errors_total{store,cause}, and reported by /readyz
// until the store works again.
func newOutages(reg *prometheus.Registry, log *slog.Logger, now func() time.Time) *outage.Watch {
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "storage_errors_total",
		Help: "Failures of the gateway's storage while serving, by store and cause (disk full, database read-only, database unreachable, ...).",
	}, []string{"store", "cause"})
	reg.MustRegister(errs)
	return outage.New(outage.Config{Log: log, Now: now,
		Count: func(store, cause string) { errs.WithLabelValues(store, cause).Inc() }})
}

// storageFailing is the readiness check's word for a store that fails
// while serving, naming it and the cause (fixed words both: /readyz
// answers anyone), or "".
func storageFailing(w *outage.Watch) string {
	f := w.Failing()
	if len(f) == 0 {
		return ""
	}
	return "storage_failing: " + f[0].Store + ": " + f[0].Cause
}
