package keys

import "fmt"

func sprintf(f string, v any) string { return fmt.Sprintf(f, v) }
