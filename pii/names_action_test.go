package pii

import (
	"fmt"
	"testing"
)

// TestActionItemOwner: a pair of capitalised words of which a list knows one, under a bullet or
// an action marker and before the verb of the work, is the name of the person who owns the item;
// teams and roles in the same place are not. The names are written for the test.
func TestActionItemOwner(t *testing.T) {
	sc, _ := New(nil)
	owners := []string{"Rajesh Okonkwo", "Meseret Alemu", "Jelagat Owino", "Ilse Brandtner", "Kavita Deshmukh"}
	lines := []string{"Actions:\n- %s to follow up with the vendor\n- ops to rotate the rota", "AP: %s book the venue by Friday.",
		"Minutes 3 May. Action: %s to circulate the draft.", "TODO: %s chase the landlord", "* %s to send the figures"}
	for i, o := range owners {
		text := fmt.Sprintf(lines[i], o)
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
	for _, text := range []string{"- Finance Team to review the budget", "AP: facilities book the venue.",
		"- Legal Ops to send the contract", "Action: Data Platform to schedule the migration"} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a name found", text)
		}
	}
}
