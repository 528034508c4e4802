package httpface

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

func (f *Face) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"status":"ok","org":%q,"version":%q}`+"\n", f.cfg.Org, f.cfg.Version)
}

// serveReady answers 200 when the gateway takes traffic, and 503 with the
// reason Ready gives otherwise. The reason is one of a few fixed words:
// the cause itself may name hosts or users, and this endpoint answers
// anyone.
func (f *Face) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	reason := f.cfg.Ready(ctx)
	w.Header().Set("Content-Type", "application/json")
	if reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"status":"not ready","reason":%q}`+"\n", reason)
		return
	}
	fmt.Fprintln(w, `{"status":"ready"}`)
}
