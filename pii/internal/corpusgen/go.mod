module github.com/moltgate/moltgate/pii/internal/corpusgen

go 1.26.0

require (
	github.com/brianvoe/gofakeit/v7 v7.18.2
	github.com/nyaruka/phonenumbers v1.8.1
)

require (
	golang.org/x/text v0.23.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
