package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestScriptNames: a Cyrillic or Greek given name and surname after a word for a customer or
// inside a sentence, and a Korean name before an honorific, are names; places, firms and titles in
// the same scripts are not.
func TestScriptNames(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(51, 52))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for k := 0; k < 40; k++ {
		cyr := pick("Никифор", "Тарас", "Богдана", "Святослава", "Ирина", "Олег") + " " +
			pick("Комис", "Нестер", "Бобр", "Шевч", "Кравч", "Мельн") + pick("ов", "ова", "енко", "ук", "ский", "ич")
		gr := pick("Διδώ", "Πολύκαρπος", "Ζαχαρούλα", "Νίκος") + " " + pick("Βαβουλ", "Γουργουλ", "Παπαδ", "Μαυρ") + pick("ίδης", "άκης", "όπουλος", "ής")
		ko := pick("장", "김", "이", "박") + pick("선영", "민수", "지훈", "서연")
		s := pick(
			fmt.Sprintf("Клиент %s просит перезвонить.", cyr),
			fmt.Sprintf("Вчера звонил %s по поводу заказа.", cyr),
			fmt.Sprintf("Ο πελάτης %s ζήτησε επιστροφή χρημάτων.", gr),
			fmt.Sprintf("%s 고객님이 환불을 요청하셨습니다.", ko),
			fmt.Sprintf("%s씨에게 연락해 주세요.", ko),
		)
		if !hasType(sc.ScanText(s), TypeName) {
			t.Errorf("%q: no name", s)
		}
		neg := pick("Мы были в Нижнем Новгороде вчера.", "Российская Федерация и Европейский Союз подписали договор.",
			"Поставка для «Газпром нефть» задерживается.", "Η Ολυμπιακή Αεροπορία ακύρωσε πτήσεις.",
			"Στην Αθήνα η θερμοκρασία ανεβαίνει.", "고객님의 주문이 발송되었습니다.", "서울 지하철 4호선 운행이 지연되고 있습니다.")
		if fs := sc.ScanText(neg); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", neg, fs)
		}
	}
}
