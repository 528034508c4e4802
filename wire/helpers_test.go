package wire

import "fmt"

func sprintT(x any) string { return fmt.Sprintf("%T", x) }
