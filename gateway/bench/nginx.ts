import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Installs the Debian nginx package when it is missing (benchmark only; CI does not need it). */
export function ensureNginx(): string {
  const find = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    } catch {
      return '';
    }
  };
  let bin = find();
  if (!bin) {
    execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null'], {
      stdio: 'inherit',
    });
    bin = find();
  }
  if (!bin) throw new Error('nginx is not installed and could not be installed');
  return bin;
}

/**
 * Runs nginx with its own config in `dir`: one worker, 127.0.0.1 only, proxy_pass to the upstream over keep-alive
 * connections, and limit_req with a rate high enough never to refuse (the classic baseline's per-request cost).
 */
export async function startNginx(bin: string, dir: string, port: number, upstreamPort: number): Promise<() => Promise<void>> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  limit_req_zone $binary_remote_addr zone=rpc:10m rate=1000000r/s;
  upstream node { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      limit_req zone=rpc burst=1000000 nodelay;
      proxy_pass http://node;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  const proc = spawn(bin, ['-c', file, '-p', dir], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return async () => {
    if (proc.exitCode === null) proc.kill('SIGQUIT');
    await exited;
  };
}
