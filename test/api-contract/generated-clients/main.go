// Reads the shop and pages through its orders with the client oapi-codegen generated (shopflow.gen.go
// beside this file, in the same package), as an integrator would; prints what it read as JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
)

func main() {
	ctx := context.Background()
	bearer := func(_ context.Context, request *http.Request) error {
		request.Header.Set("Authorization", "Bearer "+os.Getenv("SHOPFLOW_API_KEY"))
		return nil
	}
	client, err := NewClientWithResponses(os.Getenv("SHOPFLOW_BASE_URL"), WithRequestEditorFn(bearer))
	check(err)
	limit, err := strconv.Atoi(os.Getenv("SHOPFLOW_PAGE_LIMIT"))
	check(err)

	shop, err := client.GetShopWithResponse(ctx)
	check(err)
	if shop.JSON200 == nil {
		fail("GET /shop", shop.StatusCode(), shop.Body)
	}
	params := ListOrdersParams{Limit: &limit}
	pages := [][]string{}
	for {
		page, err := client.ListOrdersWithResponse(ctx, &params)
		check(err)
		if page.JSON200 == nil {
			fail("GET /orders", page.StatusCode(), page.Body)
		}
		codes := []string{}
		for _, order := range page.JSON200.Data {
			codes = append(codes, order.Code)
		}
		pages = append(pages, codes)
		if page.JSON200.NextCursor == nil {
			break
		}
		params.Cursor = page.JSON200.NextCursor
	}
	check(json.NewEncoder(os.Stdout).Encode(map[string]any{"shop": shop.JSON200.Name, "pages": pages}))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func fail(call string, status int, body []byte) {
	fmt.Fprintf(os.Stderr, "%s answered %d: %s\n", call, status, body)
	os.Exit(1)
}
