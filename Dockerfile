# syntax=docker/dockerfile:1
# The airi bot as one static binary on a minimal, non-root image.
# Build: docker build -t airi .
# Run:   docker run -v airi-data:/data -e LLM_API_BASE_URL=... -e LLM_MODEL=... -e TELEGRAM_BOT_TOKEN=... airi

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/airi ./cmd/airi \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
# distroless/static carries CA certificates and tzdata.
COPY --from=build /out/airi /usr/local/bin/airi
COPY --from=build --chown=nonroot:nonroot /out/data /data
ENV DB_PATH=/data/airi.db \
    LOG_FORMAT=json
VOLUME ["/data"]
USER nonroot:nonroot
EXPOSE 7070
# /readyz of the admin server: the store takes writes, every adapter
# reaches its platform, the model does not refuse the calls.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/airi", "health"]
ENTRYPOINT ["/usr/local/bin/airi"]
CMD ["run"]
