#pragma once
// `apply --follow --metrics ADDR:PORT`: Prometheus scrapes /metrics here
// (libmicrohttpd, its own thread). Every other path answers 404, every
// method but GET and HEAD 405. The text is what `render` returns at each
// request (called on the server's thread: it must lock what it reads).

#include <cstdint>
#include <functional>
#include <string>

struct MHD_Daemon;

namespace affix {

struct MetricsAddress {
  std::string host;  // an IPv4 or IPv6 address, as written (without brackets)
  uint16_t port = 0;
  bool ipv6 = false;
};

// "127.0.0.1:9431", "[::1]:9431", "0.0.0.0:9431", ":9431" (every IPv4
// address); port 0 picks a free one. Error(Usage) where it is not one.
MetricsAddress parse_metrics_address(const std::string& text);

class MetricsServer {
public:
  // Binds and listens; Error(Runtime) naming the address where it cannot.
  MetricsServer(const MetricsAddress& address, std::function<std::string()> render);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;
  // The port it listens on (the one picked, for port 0).
  uint16_t port() const { return m_port; }
  // "http://HOST:PORT/metrics".
  std::string url() const;
  // Called by the server's thread.
  std::string render() const { return m_render(); }

private:
  MetricsAddress m_address;
  std::function<std::string()> m_render;
  MHD_Daemon* m_daemon = nullptr;
  int m_fd = -1;
  uint16_t m_port = 0;
};

}  // namespace affix
