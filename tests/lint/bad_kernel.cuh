bad(){ asm volatile("nop"); }
__shared__ int x;
