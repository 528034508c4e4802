package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCJKDates: a date written with 年, 月 and 日 after a birth cue is a date of birth; the same
// date after no cue is nothing.
func TestCJKDates(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(2, 6))
	for k := 0; k < 30; k++ {
		date := fmt.Sprintf("%d年%d月%d日", 1940+r.IntN(65), 1+r.IntN(12), 1+r.IntN(28))
		s := fmt.Sprintf([]string{"生年月日：%s", "出生日期: %s", "誕生日: %s", "出生年月日 %s"}[k%4], date)
		if !hasType(sc.ScanText(s), TypeDOB) {
			t.Errorf("%q: no date of birth", s)
		}
		if fs := sc.ScanText(fmt.Sprintf([]string{"%sにリリースしました", "会议定于%s举行", "更新日：%s"}[k%3], date)); len(fs) > 0 {
			t.Errorf("%q: %v, want nothing", date, fs)
		}
	}
}

// TestKoreanDates: a date written with 년, 월 and 일 after a Korean birth cue is a date of birth;
// the same date of an event is nothing.
func TestKoreanDates(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(3, 7))
	for k := 0; k < 24; k++ {
		date := fmt.Sprintf("%d년 %d월 %d일", 1940+r.IntN(65), 1+r.IntN(12), 1+r.IntN(28))
		s := fmt.Sprintf([]string{"생년월일: %s", "출생일 %s", "생년월일 %s"}[k%3], date)
		if !hasType(sc.ScanText(s), TypeDOB) {
			t.Errorf("%q: no date of birth", s)
		}
		if fs := sc.ScanText(fmt.Sprintf([]string{"회의는 %s에 열립니다", "출시일: %s"}[k%2], date)); len(fs) > 0 {
			t.Errorf("%q: %v, want nothing", date, fs)
		}
	}
}
