package gateway

import (
	"context"
	"path/filepath"

	"github.com/moltgate/moltgate/tracing"
)

// openTracing starts the exporter [tracing] names; nil for none, so that a
// gateway that traces nothing spends nothing on it. A relative path is
// taken from the gateway directory, as every other path of the gateway is.
func openTracing(d Dir, cfg *Config) (*tracing.Tracing, error) {
	c := cfg.Tracing
	if c.Exporter == "" || c.Exporter == tracing.ExporterNone {
		return nil, nil
	}
	if c.Exporter == tracing.ExporterFile && !filepath.IsAbs(c.Path) {
		c.Path = d.path(c.Path)
	}
	return tracing.New(context.Background(), c, "moltgate", cfg.Org)
}
