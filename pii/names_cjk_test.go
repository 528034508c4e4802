package pii

import (
	"fmt"
	"testing"
)

func TestCJKNames(t *testing.T) {
	sc, _ := New(nil)
	family := []string{"佐藤", "高橋", "渡辺", "伊藤", "小林"}
	given := []string{"健太", "美咲", "翔", "陽菜"}
	templates := []string{"Case opened on behalf of %s, who disputes the charge.", "%s called again about the refund.",
		"Merci de contacter %s demain matin."}
	n := 0
	for i, f := range family {
		for j, g := range given {
			text := fmt.Sprintf(templates[(i+j)%len(templates)], f+" "+g)
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	for _, v := range []string{"王芳", "李建国", "张 伟"} {
		if !hasType(sc.ScanValue("p", map[string]any{"guest": v}), TypeName) {
			t.Errorf("guest=%q: name not found", v)
		}
	}
	// Inside Chinese or Japanese text, or as a place, ideographs are not read as a name.
	for _, text := range []string{"我们在 东京 见面", "会議は 本社 三階で"} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: read as a name", text)
		}
	}
	if fs := sc.ScanValue("p", map[string]any{"city": "東京 都", "warehouse": "大阪 第二倉庫"}); len(fs) > 0 {
		t.Errorf("places read as names: %v", fs)
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

// A Chinese name between a role word and a verb, in Chinese text, is a name; a compound of the
// role word ("客户服务", customer service) is not. The names are written for the test.
func TestChineseNamesAfterARole(t *testing.T) {
	sc, _ := New(nil)
	roles := []string{"客户", "客戶", "患者", "用户", "员工", "乘客"}
	names := []string{"景婉婷", "甯柏翰", "王小明", "陈静", "林志豪"}
	verbs := []string{"要求退款。", "表示不满意。", "已经出院。", "昨天来电。", "希望改期。"}
	n := 0
	for i, r := range roles {
		for j, name := range names {
			if (i+j)%2 != 0 {
				continue
			}
			text := r + name + verbs[(i+j)%len(verbs)]
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"客户服务要求很高。", "我们的客户满意度提高了。", "患者需求表示明确。"} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a compound read as a name", text)
		}
	}
}
