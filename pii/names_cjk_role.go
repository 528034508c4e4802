package pii

import (
	"strings"
	"unicode/utf8"
)

// A Chinese name inside Chinese text has no space and no capital to set it apart; what marks it
// is the role word before it and the verb after it: "客戶景婉婷要求退款" (the customer X asks for a
// refund), "患者王小明已经出院" (the patient X has left hospital). Between a role word and a verb or
// a particle of cjkAfterName, two or three ideographs are a person's name, whoever's name it is:
// no list of Chinese names is needed.

// cjkRoles are role words that a person's name follows, in simplified and traditional script.
var cjkRoles = []string{"客户", "客戶", "顾客", "顧客", "患者", "病人", "用户", "用戶", "员工", "員工", "联系人",
	"聯絡人", "联络人", "乘客", "会员", "會員", "申请人", "申請人", "租户", "租戶", "学生", "學生", "经理", "經理",
	"同事", "老师", "老師", "医生", "醫生", "护士", "護士", "收件人", "寄件人", "候选人", "候選人", "家属", "家屬"}

// cjkAfterName are verbs and particles that follow a person's name: asks, says, wants, applies,
// calls, complains, has already, is at, today, and the honorifics Mr and Ms.
var cjkAfterName = []string{"要求", "表示", "希望", "申请", "申請", "来电", "來電", "致电", "致電", "投诉", "投訴",
	"反映", "询问", "詢問", "已经", "已經", "说", "說", "今天", "昨天", "先生", "女士", "小姐", "需要", "请求", "請求",
	"提出", "预约", "預約", "打电话", "打電話"}

// cjkNotNames are words that follow a role word as a compound, not a name: "客户服务要求" is the
// requirements of customer service.
var cjkNotNames = []string{"服务", "服務", "信息", "資訊", "数据", "數據", "满意", "滿意", "体验", "體驗", "需求", "反馈",
	"回饋", "支持", "中心", "经理", "經理", "管理", "关系", "關係", "资料", "資料", "名单", "名單", "隐私", "隱私", "账户",
	"帳戶", "编号", "編號", "群体", "群體", "投诉", "投訴", "部门", "部門", "代表", "总数", "總數"}

// cjkRoleName looks in the run of ideographs s[p:j] for a role word followed by a name; it
// returns the end of the name, or p.
func (x *scanCtx) cjkRoleName(p, j int) int {
	s := x.s[:j]
	for _, role := range cjkRoles {
		r := strings.Index(s[p:], role)
		if r < 0 {
			continue
		}
		a := p + r + len(role)
		if hasAnyPrefix(x.s[a:], cjkNotNames) {
			continue
		}
		// Three ideographs, then two: "景婉婷要求", "王明要求".
		for _, n := range []int{3, 2} {
			e := a
			k := 0
			for k < n && e < len(x.s) {
				c, size := utf8.DecodeRuneInString(x.s[e:])
				if c < 0x4E00 || c > 0x9FFF {
					break
				}
				e += size
				k++
			}
			if k < n {
				continue
			}
			for _, v := range cjkAfterName {
				if strings.HasPrefix(x.s[e:], v) {
					x.add(TypeName, a, e, 0.75, "name.cjk")
					return e
				}
			}
		}
	}
	return p
}

func hasAnyPrefix(s string, list []string) bool {
	for _, p := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
