"""Reads the shop and pages through its orders with the client openapi-python-client generated
(package shopflow_client beside this file), as an integrator would; prints what it read as JSON."""

import json
import os
import sys

from shopflow_client import AuthenticatedClient
from shopflow_client.api.orders.list_orders import sync_detailed as list_orders
from shopflow_client.api.shop.get_shop import sync_detailed as get_shop
from shopflow_client.types import UNSET

client = AuthenticatedClient(base_url=os.environ["SHOPFLOW_BASE_URL"], token=os.environ["SHOPFLOW_API_KEY"])
limit = int(os.environ["SHOPFLOW_PAGE_LIMIT"])


def parsed(call, response):
    if response.status_code != 200:
        sys.exit(f"{call} answered {response.status_code}: {response.content.decode()}")
    return response.parsed


shop = parsed("GET /shop", get_shop(client=client))
pages = []
cursor = UNSET
while True:
    page = parsed("GET /orders", list_orders(client=client, limit=limit, cursor=cursor))
    pages.append([order.code for order in page.data])
    cursor = page.next_cursor
    if not cursor:
        break
print(json.dumps({"shop": shop.name, "pages": pages}))
