package keyswitch

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/retired"
)

// expire drops from the keyring in use the X25519 keys replaced whose
// overlap has ended, and removes their files from RetiredDir (package
// retired), so that a key replaced leaves memory and disk when it stops
// opening anything. The shared keys their boxes remember are zeroed at
// the next call, once what was opening under the keyring before has had
// a watch tick to finish. The caller holds w.mu.
func (w *Switch) expire() error {
	for _, b := range w.forget {
		b.Forget()
	}
	w.forget = nil
	now := w.cfg.Now()
	if _, ended := w.cfg.Keys.Keyring().Expired(now); len(ended) > 0 {
		var dropped []crypto.Former
		if _, err := w.cfg.Keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
			set.Keys, dropped = set.Keys.Expired(now)
			return set, nil
		}); err != nil {
			return fmt.Errorf("retired X25519 keys: %w", err)
		}
		for _, f := range dropped {
			w.forget = append(w.forget, f.Box)
			w.cfg.Log.Info("retired X25519 key dropped: its overlap ended", "enc_key", f.Box.Public().String(),
				"refused_from", f.Until.UTC().Format(time.RFC3339))
		}
	}
	if w.cfg.RetiredDir == "" {
		return nil
	}
	removed, err := retired.Sweep(w.cfg.RetiredDir, now)
	for _, p := range removed {
		w.cfg.Log.Info("retired X25519 key file removed: its overlap ended", "file", filepath.Base(p))
	}
	if err != nil {
		return fmt.Errorf("retired X25519 keys: %w", err)
	}
	return nil
}
