package pii

import "testing"

// TestSchemaNameAttributes: the name attribute of a schema's type, field or operation (OData
// CSDL, XML Schema, WSDL, a form's input) names no person; that of an element about people still
// does.
func TestSchemaNameAttributes(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		`<EntityType Name="Employee"><Key><PropertyRef Name="EmployeeID"/></Key><Property Name="Cedula" Type="Edm.String"/></EntityType>`,
		`<xs:element name="Patient" type="tns:PatientType"/>`,
		`<wsdl:operation name="GetCustomer"><wsdl:input message="tns:GetCustomerRequest"/></wsdl:operation>`,
		`<input type="text" name="Surname" required>`,
		`<NavigationProperty Name="Manager" Type="HR.Employee"/>`,
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: read as a name: %v", text, fs)
		}
	}
	for _, text := range []string{
		`<Person Name="Ivana Horvat"/>`,
		`<Member Name="Ivana Horvat" role="treasurer"/>`,
		`<Signer name="Pieter Botha" date="2026-03-02"/>`,
	} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name", text)
		}
	}
}
