"""A real NLIP server process: nlip-server's FastAPI app on uvicorn, answering ``pong: <text>``.

Usage: ``python ag2_nlip_server.py PORT``. The application is nlip-server's own
(``NLIP_Application``/``NLIP_Session``); AG2's ``AG2NlipApplication`` drives its agent through
an OpenAI-style model client (it ignores reply functions), which has no offline model.
"""

import sys

import uvicorn
from nlip_sdk.nlip import NLIP_Factory, NLIP_Message
from nlip_server.server import NLIP_Session, SafeApplication, setup_server


class PongSession(NLIP_Session):
    async def execute(self, msg: NLIP_Message) -> NLIP_Message:
        return NLIP_Factory.create_text(f"pong: {msg.extract_text()}")


class PongApp(SafeApplication):
    def create_session(self) -> NLIP_Session:
        return PongSession()


def main() -> None:
    port = int(sys.argv[1])
    uvicorn.run(setup_server(PongApp()), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
