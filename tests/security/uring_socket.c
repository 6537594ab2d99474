/* The io_uring client of tests/security/test_fence_privileges.py: connects to the Unix socket named by argv[1]
   and sends "hello" using io_uring only (IORING_OP_SOCKET, IORING_OP_CONNECT, IORING_OP_SEND): no socket() or
   connect() system call. Exit 0: connected; 3: io_uring refused; 4: the kernel has no IORING_OP_SOCKET; 5: the
   connection failed. */
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int ring_fd;
static unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;

static int submit(struct io_uring_sqe *fill) {
    unsigned tail = *sq_tail, index = tail & *sq_mask;
    sqes[index] = *fill;
    sq_array[index] = index;
    __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
    if (syscall(__NR_io_uring_enter, ring_fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -errno;
    unsigned head = __atomic_load_n(cq_head, __ATOMIC_ACQUIRE);
    int res = cqes[head & *cq_mask].res;
    __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
    return res;
}

int main(int argc, char **argv) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    ring_fd = syscall(__NR_io_uring_setup, 4, &p);
    if (ring_fd < 0) { printf("io_uring refused: %s\n", strerror(errno)); return 3; }
    char *sq = mmap(0, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_SQ_RING);
    char *cq = mmap(0, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_CQ_RING);
    sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) { perror("mmap"); return 6; }
    sq_tail = (unsigned *)(sq + p.sq_off.tail); sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    sq_array = (unsigned *)(sq + p.sq_off.array);
    cq_head = (unsigned *)(cq + p.cq_off.head); cq_tail = (unsigned *)(cq + p.cq_off.tail);
    cq_mask = (unsigned *)(cq + p.cq_off.ring_mask); cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

    struct io_uring_sqe sqe;
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_SOCKET; sqe.fd = AF_UNIX; sqe.off = SOCK_STREAM;
    int sock = submit(&sqe);
    if (sock == -EINVAL || sock == -EOPNOTSUPP) { printf("no IORING_OP_SOCKET here: %s\n", strerror(-sock)); return 4; }
    if (sock < 0) { printf("socket through io_uring failed: %s\n", strerror(-sock)); return 5; }

    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_CONNECT; sqe.fd = sock; sqe.addr = (unsigned long)&addr; sqe.off = sizeof addr;
    int done = submit(&sqe);
    if (done < 0) { printf("connect through io_uring failed: %s\n", strerror(-done)); return 5; }

    static const char hello[] = "hello";
    memset(&sqe, 0, sizeof sqe);
    sqe.opcode = IORING_OP_SEND; sqe.fd = sock; sqe.addr = (unsigned long)hello; sqe.len = 5;
    done = submit(&sqe);
    printf("connected, sent %d bytes\n", done);
    return done == 5 ? 0 : 5;
}
