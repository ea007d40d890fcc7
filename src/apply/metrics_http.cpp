#include "metrics_http.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

MetricsAddress parse_metrics_address(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::Usage, fmt::format("--metrics: '{}' is not ADDR:PORT ({})", text, why));
  };
  MetricsAddress a;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw bad("an IPv6 address is written [ADDR]:PORT");
    a.host = text.substr(1, close - 1);
    a.ipv6 = true;
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) throw bad("no port");
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host.empty()) a.host = "0.0.0.0";
  }
  unsigned char buf[sizeof(in6_addr)];
  if (inet_pton(a.ipv6 ? AF_INET6 : AF_INET, a.host.c_str(), buf) != 1)
    throw bad(a.ipv6 ? "not an IPv6 address" : "not an IPv4 address");
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535)
    throw bad("the port is a number from 0 to 65535");
  a.port = static_cast<uint16_t>(std::stoul(port));
  return a;
}

namespace {

// libmicrohttpd is loaded when a server starts, not linked: its shared
// library loads GnuTLS, whose constructor would run at every launch of
// every affix command (CMakeLists.txt, "libmicrohttpd").
struct Mhd {
  decltype(&MHD_start_daemon) start_daemon = nullptr;
  decltype(&MHD_stop_daemon) stop_daemon = nullptr;
  decltype(&MHD_create_response_from_buffer) create_response_from_buffer = nullptr;
  decltype(&MHD_add_response_header) add_response_header = nullptr;
  decltype(&MHD_queue_response) queue_response = nullptr;
  decltype(&MHD_destroy_response) destroy_response = nullptr;
};

const Mhd& mhd() {
  static Mhd lib;
  static std::string why;
  static bool tried = false;
  if (!tried) {
    tried = true;
    void* h = dlopen(AFFIX_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      why = dlerror();
    } else {
      auto sym = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
        if (!fn && why.empty()) why = fmt::format("{} has no {}", AFFIX_MHD_SONAME, name);
      };
      sym(lib.start_daemon, "MHD_start_daemon");
      sym(lib.stop_daemon, "MHD_stop_daemon");
      sym(lib.create_response_from_buffer, "MHD_create_response_from_buffer");
      sym(lib.add_response_header, "MHD_add_response_header");
      sym(lib.queue_response, "MHD_queue_response");
      sym(lib.destroy_response, "MHD_destroy_response");
    }
  }
  if (!why.empty())
    throw Error(ErrorKind::Runtime, fmt::format("--metrics ADDR:PORT needs libmicrohttpd: {}", why),
                "install libmicrohttpd12 (Debian), or scrape a textfile: apply --check --metrics FILE");
  return lib;
}

MHD_Result answer(void* cls, MHD_Connection* connection, const char* url, const char* method, const char*,
                  const char*, size_t* upload_size, void** state) {
  auto* self = static_cast<MetricsServer*>(cls);
  // The first call for a request only announces it (a body may follow).
  static int announced;
  if (*state == nullptr) {
    *state = &announced;
    return MHD_YES;
  }
  if (*upload_size != 0) {
    *upload_size = 0;  // a body to a GET: ignored
    return MHD_YES;
  }
  std::string body;
  unsigned status = MHD_HTTP_OK;
  const char* type = "text/plain; version=0.0.4; charset=utf-8";
  const bool get = std::strcmp(method, "GET") == 0 || std::strcmp(method, "HEAD") == 0;
  if (std::strcmp(url, "/metrics") != 0) {
    status = MHD_HTTP_NOT_FOUND;
    body = "404 not found: affix serves /metrics only\n";
    type = "text/plain; charset=utf-8";
  } else if (!get) {
    status = MHD_HTTP_METHOD_NOT_ALLOWED;
    body = "405 method not allowed: GET /metrics\n";
    type = "text/plain; charset=utf-8";
  } else {
    try {
      body = self->render();
    } catch (const std::exception& e) {
      status = MHD_HTTP_INTERNAL_SERVER_ERROR;
      body = fmt::format("500 {}\n", e.what());
    }
  }
  const Mhd& lib = mhd();
  MHD_Response* r = lib.create_response_from_buffer(body.size(), body.data(), MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  lib.add_response_header(r, "Content-Type", type);
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED) lib.add_response_header(r, "Allow", "GET, HEAD");
  MHD_Result ok = lib.queue_response(connection, status, r);
  lib.destroy_response(r);
  return ok;
}

}  // namespace

MetricsServer::MetricsServer(const MetricsAddress& address, std::function<std::string()> render)
    : m_address(address), m_render(std::move(render)) {
  const std::string where = m_address.ipv6 ? fmt::format("[{}]:{}", m_address.host, m_address.port)
                                           : fmt::format("{}:{}", m_address.host, m_address.port);
  auto fail = [&](int err) {
    if (m_fd >= 0) ::close(m_fd);
    return Error(ErrorKind::Runtime, fmt::format("cannot serve metrics on {}: {}", where, std::strerror(err)));
  };
  const Mhd& lib = mhd();
  // The socket is affix's own, so a refusal says why (EADDRINUSE, EACCES).
  sockaddr_storage sa{};
  socklen_t len = 0;
  if (m_address.ipv6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&sa);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(m_address.port);
    inet_pton(AF_INET6, m_address.host.c_str(), &s6->sin6_addr);
    len = sizeof *s6;
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&sa);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(m_address.port);
    inet_pton(AF_INET, m_address.host.c_str(), &s4->sin_addr);
    len = sizeof *s4;
  }
  m_fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (m_fd < 0) throw fail(errno);
  int one = 1;
  setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(m_fd, reinterpret_cast<sockaddr*>(&sa), len) != 0) throw fail(errno);
  if (listen(m_fd, 64) != 0) throw fail(errno);
  sockaddr_storage bound{};
  socklen_t blen = sizeof bound;
  getsockname(m_fd, reinterpret_cast<sockaddr*>(&bound), &blen);
  m_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  if (m_address.ipv6) flags |= MHD_USE_IPv6;
  m_daemon = lib.start_daemon(flags, 0, nullptr, nullptr, &answer, this, MHD_OPTION_LISTEN_SOCKET, m_fd,
                              MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
  if (!m_daemon) throw fail(errno ? errno : EINVAL);
}

MetricsServer::~MetricsServer() {
  if (m_daemon) mhd().stop_daemon(m_daemon);  // closes the listening socket too
}

std::string MetricsServer::url() const {
  return m_address.ipv6 ? fmt::format("http://[{}]:{}/metrics", m_address.host, m_port)
                        : fmt::format("http://{}:{}/metrics", m_address.host, m_port);
}

}  // namespace affix
