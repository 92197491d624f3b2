
/* Attack: an object the build cache keeps for good. 60 MiB of initialised data make a 60 MiB
 * object and runners as large; the cache kept every one of them forever. It keeps no entry
 * over 16 MiB now, and trims itself to its cap; the stage is otherwise the reference's and
 * keeps full marks. */
const volatile unsigned char attack_big_object[60 << 20] = { 1 };
