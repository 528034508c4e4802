module github.com/moltgate/moltgate

go 1.26.0

require github.com/nyaruka/phonenumbers v1.8.1

require (
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
