module example.com/x

go 1.25

require github.com/oapi-codegen/runtime v1.1.2
