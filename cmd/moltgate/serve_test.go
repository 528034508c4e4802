package main

import (
	"errors"
	"reflect"
	"testing"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/wire"
)

// A reload's mistakes are each a line of their own, with their own code.
func TestDescribeEach(t *testing.T) {
	err := errors.Join(
		&gateway.ConfigError{Key: "peers/beta.json: max_cls", Msg: "must be one of pub, int, conf, pii, sec"},
		nil,
		errors.Join(wire.Errorf(wire.ErrPeerUnavailable, "", "gone")),
		&gateway.ConfigError{Key: "listen.request_timout", Msg: "unknown setting"},
	)
	want := []string{
		"E_INVALID_PARAM: config: peers/beta.json: max_cls: must be one of pub, int, conf, pii, sec",
		"E_PEER_UNAVAILABLE: gone",
		"E_INVALID_PARAM: config: listen.request_timout: unknown setting",
	}
	if got := describeEach(err); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := describeEach(nil); got != nil {
		t.Fatalf("nil: %q", got)
	}
}
