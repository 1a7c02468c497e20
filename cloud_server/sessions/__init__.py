"""The edges' sessions: who is connected and in what state, the credentials and their roles, and the checks of
what edges send (summaries, retrieval and probe replies) before it is used."""
