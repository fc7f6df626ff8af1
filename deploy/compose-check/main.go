// Command compose-check reads a Compose file as `docker compose config` does, with no Docker engine:
// compose-go (the library Docker Compose is built on) interpolates the environment, validates the
// file against the Compose Specification's schema and normalises it, then the model is printed as
// JSON. A missing required variable (`${NAME:?message}`) or an invalid file exits 1 with the reason.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <docker-compose.yml>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err == nil {
		err = check(file)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func check(file string) error {
	options, err := cli.NewProjectOptions([]string{file}, cli.WithOsEnv, cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithName("shopflow"))
	if err != nil {
		return err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		return err
	}
	model, err := project.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(model)
	return err
}
