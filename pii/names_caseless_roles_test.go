package pii

import "testing"

// TestCaselessRoleNames: a given name and surname after the word for a user, a patient or a
// customer in Georgian, Bengali, Tamil and Amharic are a person's; the role word followed by the
// sentence's verb, or standing alone, names no one.
func TestCaselessRoleNames(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"ფიქრი: მომხმარებელი ლევან ხარაიშვილი ითხოვს თანხის დაბრუნებას.",
		"პაციენტი ნინო ბერიძე ორი დღით ადრე მოვიდა.",
		"চিন্তা: ব্যবহারকারী তানভীর রহমান রিফান্ড চাইছেন।",
		"சிந்தனை: பயனர் கார்த்திக் சேகர் பணத்தைத் திரும்பக் கேட்கிறார்.",
		"ማስታወሻ፦ ተጠቃሚ ዳዊት ተስፋዬ ገንዘብ እንዲመለስ ጠይቋል።",
		"Thought: the customer is አቶ አበበ በቀለ, asking for a refund.",
	} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name", text)
		}
	}
	for _, text := range []string{
		"მომხმარებელი ითხოვს თანხის დაბრუნებას.",
		"ব্যবহারকারী রিফান্ড চাইছেন।",
		"பயனர் கணக்கு உருவாக்கப்பட்டது.",
		"ደንበኛ አገልግሎት ከጠዋቱ 2 ሰዓት ይጀምራል።",
		"ታካሚ ክፍል ቁጥር 3 ተዘግቷል።",
		"პაციენტი ოთახი ნომერი დაიკეტა.",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: read as a name: %v", text, fs)
		}
	}
}
