package pii

import (
	"fmt"
	"testing"
)

// TestFamilyNameFirst: a frequent Hungarian, Vietnamese, Chinese, Korean or Japanese family name
// before a given name is a person's name in notes written in any language; the same words as a
// drink, a title, a street or a place are not. The given names are written for the test.
func TestFamilyNameFirst(t *testing.T) {
	sc, _ := New(nil)
	names := []string{"Kovács Zsófia", "Szabó Levente", "Nguyễn Thị Hoa", "Trần Văn Bảo", "Huỳnh Minh Khoa",
		"Zhang Xiaoling", "Chen Lihua", "Kang Ji-woo", "Choi Min-seo", "Tanaka Haruka", "Yamamoto Kenji", "Ishikawa Ryota"}
	frames := []string{"Jegyzet: %s telefonált, holnap jön.", "Visitor today: %s from the Osaka office.",
		"Minutes: %s raised the budget overrun.", "Ghi chú: anh %s đã gọi lại.", "ok so %s just texted"}
	for i, n := range names {
		text := fmt.Sprintf(frames[i%len(frames)], n)
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
	for _, text := range []string{
		"Song Title: Sun King by the band.",
		"Ghi chú: khách sạn trên đường Nguyễn Huệ, quận 1.",
		"Moon River was played at the gala.",
		"Sun Life Financial reported earnings.",
		"Meet at Song Street, gate 3.",
	} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a name found", text)
		}
	}
}
