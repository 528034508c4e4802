package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// genCNP writes a Romanian personal numeric code with its check digit.
func genCNP(r *rand.Rand) string {
	d := fmt.Sprintf("%d%02d%02d%02d%02d%03d", 1+r.IntN(2), 50+r.IntN(50), 1+r.IntN(12), 1+r.IntN(28), 1+r.IntN(40), 1+r.IntN(999))
	w := []int{2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9}
	s := 0
	for i := range w {
		s += int(d[i]-'0') * w[i]
	}
	c := s % 11
	if c == 10 {
		c = 1
	}
	return d + string(rune('0'+c))
}

func genBirthDate(r *rand.Rand) string {
	y, m, d := 1940+r.IntN(65), 1+r.IntN(12), 1+r.IntN(28)
	return []string{fmt.Sprintf("%02d/%02d/%d", d, m, y), fmt.Sprintf("%02d.%02d.%d", d, m, y), fmt.Sprintf("%d-%02d-%02d", y, m, d)}[r.IntN(3)]
}

// TestDOBWordsMore: a date after a birth cue of Vietnamese, Greek in Latin letters, Swahili,
// Hindi, Arabic, Filipino or Korean, or under a form's birth-date member in Indonesian,
// Hungarian, Romanian, Turkish or Vietnamese, is a date of birth; the same dates after words for
// other events, or under other members, are not. A Romanian CNP under its member name is a
// national identifier.
func TestDOBWordsMore(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(47, 7))
	prose := []string{
		"Lịch khám cho bệnh nhân, ngày sinh %s, phòng 204.",
		"Khach hang sinh ngay %s tai Ha Noi.",
		"Rantevou stis 12:00, imerominia gennisis %s.",
		"Fomu ya bima: tarehe ya kuzaliwa %s, tafadhali thibitisha.",
		"Mgonjwa alizaliwa %s katika Nairobi.",
		"Applicant's janm tithi: %s as per the certificate.",
		"Form me janam tithi %s likhi hai.",
		"जन्म तिथि: %s",
		"تاريخ الميلاد: %s",
		"Petsa ng kapanganakan: %s",
		"생일: %s",
	}
	events := []string{
		"Lịch họp dự án, ngày %s, phòng 204.",
		"Rantevou synantisis stis %s, aithousa 3.",
		"Mkutano wa bodi utafanyika tarehe %s.",
		"Invoice date: %s, due in 30 days.",
		"Petsa ng pulong: %s",
		"تاريخ الفاتورة: %s",
	}
	keys := []string{"tgl_lahir", "tanggal_lahir", "szuletesi_datum", "data_nasterii", "dogum_tarihi", "ngay_sinh", "tarehe_ya_kuzaliwa"}
	other := []string{"tgl_kirim", "szallitasi_datum", "data_livrarii", "teslim_tarihi", "ngay_giao"}
	for i := 0; i < 30; i++ {
		date := genBirthDate(r)
		text := fmt.Sprintf(prose[i%len(prose)], date)
		if !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: no date of birth", text)
		}
		ev := fmt.Sprintf(events[i%len(events)], date)
		if fs := sc.ScanText(ev); hasType(fs, TypeDOB) {
			t.Errorf("%q: a date of birth: %v", ev, fs)
		}
		js, _ := json.Marshal(map[string]any{"form": map[string]any{keys[i%len(keys)]: date, "status": "ok"}})
		if fs, _ := sc.ScanJSON("p", js); !hasType(fs, TypeDOB) {
			t.Errorf("%s: no date of birth", js)
		}
		js, _ = json.Marshal(map[string]any{"form": map[string]any{other[i%len(other)]: date, "status": "ok"}})
		if fs, _ := sc.ScanJSON("p", js); hasType(fs, TypeDOB) {
			t.Errorf("%s: a date of birth: %v", js, fs)
		}
		js, _ = json.Marshal(map[string]any{"customer": map[string]any{[]string{"cod_numeric_personal", "codNumericPersonal", "cnp"}[i%3]: genCNP(r), "segment": "sme"}})
		if fs, _ := sc.ScanJSON("p", js); !hasType(fs, TypeNationalID) {
			t.Errorf("%s: no national identifier", js)
		}
	}
}
