package pii

import "strings"

// The name attribute of an element that declares a type, a field or an operation in a schema
// (OData's CSDL, XML Schema, WSDL, HTML forms) names that type or field: <EntityType
// Name="Employee">, <Property Name="Cedula" Type="Edm.String"/>, <xs:element name="Patient"/>. It
// is no person's name, as <Person Name="…"> or <Signer name="…"> may be.

// schemaTags are those elements, in lower case and without a namespace prefix.
var schemaTags = toSet(`entitytype entityset complextype enumtype property propertyref navigationproperty
function action functionimport parameter returntype association associationset entitycontainer schema key
annotation term propertyvalue element attribute simpletype attributegroup sequence choice
operation message part port porttype binding service field column table index param input select option
textarea form meta`)

// schemaNameAttr reports whether the word s[i:j] ("name") is an attribute, ="…" after it, of an
// element of schemaTags.
func schemaNameAttr(s string, i, j int) bool {
	if j+1 >= len(s) || s[j] != '=' || s[j+1] != '"' && s[j+1] != '\'' {
		return false
	}
	lt := strings.LastIndexByte(s[max(0, i-200):i], '<')
	if lt < 0 {
		return false
	}
	lt += max(0, i-200)
	if strings.IndexByte(s[lt:i], '>') >= 0 {
		return false // the attribute is outside the tag that '<' opened
	}
	e := lt + 1
	for e < i && s[e] != ' ' && s[e] != '\t' && s[e] != '\n' && s[e] != '/' {
		e++
	}
	tag := strings.ToLower(s[lt+1 : e])
	if k := strings.LastIndexByte(tag, ':'); k >= 0 {
		tag = tag[k+1:] // xs:element, wsdl:operation, edm:Property
	}
	return schemaTags.has(tag)
}
