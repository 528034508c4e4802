// Package archtest holds the test that keeps the module's import rules,
// which ARCHITECTURE.md draws: the layers below the gateway never import
// what stands on them, and the gateway's rooms reach each other only
// through the interfaces they define.
package archtest
