package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestCJKAddresses(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(16, 17))
	pref := []string{"北海道", "大阪府", "愛知県", "福岡県", "東京都"}
	city := []string{"札幌市中央区", "堺市", "名古屋市", "北九州市", "八王子市"}
	prov := []string{"浙江省", "广东省", "四川省", "湖北省"}
	ccity := []string{"杭州市", "广州市", "成都市", "武汉市"}
	road := []string{"西湖路", "中山街", "人民路", "解放街"}
	for i := range 24 {
		var text string
		if i%2 == 0 {
			text = fmt.Sprintf("Deliver to %s%s本町%d丁目%d番%d号 please.", pref[i%len(pref)], city[i%len(city)], 1+r.IntN(9), 1+r.IntN(20), 1+r.IntN(30))
		} else {
			text = fmt.Sprintf("{\"ship_to\": \"%s%s%s%d号\"}", prov[i%len(prov)], ccity[i%len(ccity)], road[i%len(road)], 1+r.IntN(300))
		}
		if !hasType(sc.ScanText(text), TypeAddress) {
			t.Errorf("%q: address not found", text)
		}
	}
	for _, text := range []string{"我们都在市中心的路上走了3个小时", "都市の道を3時間歩いた", "第3号の会議は大阪府で"} {
		if hasType(sc.ScanText(text), TypeAddress) {
			t.Errorf("%q: read as an address", text)
		}
	}
}
