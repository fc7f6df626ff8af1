#!/bin/sh
# Your first call: the shop your key belongs to, the key's application and its permissions.
# SHOPFLOW_URL is the service's address, SHOPFLOW_API_KEY your key (svc_live_…).
curl --silent --show-error --fail-with-body \
  --header "Authorization: Bearer $SHOPFLOW_API_KEY" \
  "$SHOPFLOW_URL/api/open/v1/shop"
